package dev.leasehold.scenarios.incidents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StaleTokenException;
import dev.leasehold.store.StoreConfig;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * The scenario workers' "fence first" retries a retryable advance (the {@code partitioned-billing} timeout: inst-2's
 * advance of {@code customers-6} failed once with a lock timeout behind frozen inst-1, was never made again, and the
 * run waited 90 s), and gives up at once on a stale token. On H2, with the mark's row held by a plain transaction
 * that the test commits when the first retry is announced.
 */
class RetryingGateTest {

    @Test
    void aLockTimeoutBehindAHolderIsRetriedUntilTheHolderIsGone() throws Exception {
        DataSource ds = h2("retrying_lock");
        FenceGate gate = new FenceGate(ds, StoreConfig.defaults().withLockTimeout(Duration.ofMillis(100)));
        gate.advance("customers-6", 1);
        List<String> retries = new ArrayList<>();
        try (Connection holder = ds.getConnection()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.executeUpdate("UPDATE leasehold_fence SET token = token WHERE resource = 'customers-6'");
            }
            RetryingGate.advance(gate, "customers-6", 2, text -> {
                retries.add(text);
                commit(holder); // the frozen holder's transaction ends (on PostgreSQL: the idle bound)
            });
        }
        assertThat(retries)
                .containsExactly("advance of customers-6 to 2 failed (SQLState HYT00, attempt 1 of "
                        + RetryingGate.ATTEMPTS + "): retrying");
        assertThat(gate.highestToken("customers-6")).hasValue(2);
    }

    @Test
    void aStaleTokenIsNotRetried() {
        DataSource ds = h2("retrying_stale");
        FenceGate gate = new FenceGate(ds);
        gate.advance("customers-6", 5);
        List<String> retries = new ArrayList<>();
        assertThatThrownBy(() -> RetryingGate.advance(gate, "customers-6", 3, retries::add))
                .isInstanceOf(StaleTokenException.class);
        assertThat(retries).isEmpty();
    }

    private static DataSource h2(String name) {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
        FencedSchema.install(ds, StoreConfig.defaults());
        return ds;
    }

    private static void commit(Connection holder) {
        try {
            holder.commit();
        } catch (SQLException e) {
            throw new IllegalStateException("the holder could not commit", e);
        }
    }
}
