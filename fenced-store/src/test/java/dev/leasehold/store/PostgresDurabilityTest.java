package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.store.FailoverDurability.Replication;
import dev.leasehold.store.testing.SharedPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The durability check on a standalone PostgreSQL 17 (no standby): {@code synchronous_commit = off} (zonky's default)
 * can lose acknowledged marks in a crash, so it is at risk; with it on, a standalone primary is no failover risk that
 * the server can show. A role's or database's own setting counts, as the store's sessions would use it.
 */
class PostgresDurabilityTest {

    @Test
    void aStandalonePrimaryIsNotAtRiskUnlessSynchronousCommitIsOff() throws SQLException {
        DataSource ds = SharedPostgres.freshDatabase("durability");

        FailoverDurability off = FencedSchema.durability(ds);
        assertThat(off.replication()).isEqualTo(Replication.ASYNCHRONOUS);
        assertThat(off.reason()).startsWith("synchronous_commit = off");
        assertThat(off.advice()).contains("synchronous_commit = on");

        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("ALTER DATABASE durability SET synchronous_commit = on");
        }
        FailoverDurability standalone = FencedSchema.durability(ds);
        assertThat(standalone.replication()).isEqualTo(Replication.STANDALONE);
        assertThat(standalone.atRisk()).isFalse();
        assertThat(standalone.reason()).contains("no standby streams from this server");
    }

    @Test
    void aGateStillWritesWhenTheCheckFindsARisk() {
        DataSource ds = SharedPostgres.freshDatabase("durability_gate");
        FencedSchema.install(ds);
        FenceGate gate = new FenceGate(ds);

        gate.advance("billing", 33); // the first write: the check runs (and WARNs once), the write is not refused
        gate.write("billing", 33, tx -> {});

        assertThat(gate.highestToken("billing")).hasValue(33);
    }
}
