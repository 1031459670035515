package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.store.FailoverDurability.Replication;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** H2 does not replicate: the durability check says so, and verify returns it. */
class H2DurabilityTest {

    @Test
    void h2HasNoFailoverToLoseMarksIn() {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:durability;DB_CLOSE_DELAY=-1");
        FencedSchema.install(ds);

        FailoverDurability durability = FencedSchema.verify(ds);

        assertThat(durability.replication()).isEqualTo(Replication.NOT_APPLICABLE);
        assertThat(durability.atRisk()).isFalse();
        assertThat(durability).hasToString("NOT_APPLICABLE: H2 does not replicate: there is no failover");
    }
}
