package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** What a StoreException tells the caller, from the SQLState of PostgreSQL and H2. */
class StoreExceptionTest {

    private static StoreException from(String sqlState) {
        return new StoreException("advancing the fence of 'r' to 2", new SQLException("driver says", sqlState));
    }

    @Test
    void serializationFailuresDeadlocksLockTimeoutsAndLostConnectionsAreRetryable() {
        for (String state :
                new String[] {"40001", "40P01", "90131", "55P03", "HYT00", "08006", "08003", "90067", "90098", "57P01"
                }) {
            assertThat(from(state).retryable()).as(state).isTrue();
        }
        for (String state : new String[] {"23505", "42P01", "42S02", "22001"}) {
            assertThat(from(state).retryable()).as(state).isFalse();
        }
        assertThat(new StoreException(null, new SQLException("no state")).retryable())
                .isFalse();
        assertThat(new StoreException("not the database's").retryable()).isFalse();
    }

    /** MariaDB and MySQL say HY000 for most errors: their error codes decide (1213, 1020 retried; 1205 a timeout). */
    @Test
    void mariaDbDeadlocksSnapshotConflictsAndLockWaitTimeoutsAreRetryableByTheirErrorCodes() {
        assertThat(new StoreException("op", new SQLException("Deadlock found", "40001", 1213)).retryable())
                .isTrue();
        assertThat(new StoreException("op", new SQLException("Record has changed", "HY000", 1020)).retryable())
                .isTrue();
        assertThat(new StoreException("op", new SQLException("Lock wait timeout", "HY000", 1205)))
                .satisfies(e -> assertThat(e.retryable()).isTrue())
                .hasMessageContaining("a lock timeout");
        assertThat(new StoreException("op", new SQLException("Duplicate entry", "23000", 1062)).retryable())
                .isFalse();
    }

    @Test
    void aLockTimeoutSaysSo() {
        assertThat(from("55P03"))
                .hasMessageStartingWith("advancing the fence of 'r' to 2 failed: a lock timeout")
                .hasMessageContaining("StoreConfig.withLockTimeout")
                .hasMessageContaining("(SQLState 55P03)");
        assertThat(from("HYT00")).hasMessageContaining("a lock timeout");
        assertThat(from("23505")).hasMessage("advancing the fence of 'r' to 2 failed: driver says (SQLState 23505)");
    }

    @Test
    void aFailedCommitIsAnUnknownOutcomeAndNotRetryable() {
        CommitOutcomeUnknownException e = new CommitOutcomeUnknownException(
                "fenced write to 'r' with token 3", new SQLException("connection reset", "08006"));
        assertThat(e.retryable()).isFalse();
        assertThat(e)
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("the commit failed, so the outcome is unknown");
    }

    @Test
    void aStaleTokenNamesTheHigherTokenItRead() {
        StaleTokenException e = new StaleTokenException("billing", 33, 34);
        assertThat(e)
                .hasMessage("stale token 33 for resource 'billing': the highest token seen is 34; nothing was"
                        + " written");
    }
}
