package dev.leasehold.store.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.leasehold.store.StoreException;
import dev.leasehold.store.testing.SharedPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * The store's reading of PostgreSQL's lock timeouts in a claim, on real ones: a wait on a row another session holds is
 * not retried (under SKIP LOCKED it would be a defect the caller must see); a wait on a lock on no row, and a wait on
 * a row's update chain, are; a failure that is no lock timeout is not.
 */
class PostgresSkipLockedWaitsTest {

    private static DataSource holder;
    private static DataSource impatient;

    @BeforeAll
    static void database() throws SQLException {
        holder = SharedPostgres.freshDatabase("lock_waits");
        impatient = SharedPostgres.withLockTimeout("lock_waits", 1);
        try (Connection c = holder.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS rows_held (id INT PRIMARY KEY)");
            s.execute("INSERT INTO rows_held VALUES (1) ON CONFLICT DO NOTHING");
        }
    }

    @Test
    void aWaitOnARowAnotherSessionHoldsIsNotRetried() throws SQLException {
        SQLException failure = whileHolding(
                "SELECT id FROM rows_held WHERE id = 1 FOR UPDATE", "SELECT id FROM rows_held WHERE id = 1 FOR UPDATE");

        assertThat(failure.getMessage()).contains("while locking tuple");
        assertThat(PostgresSkipLockedWaits.onNoClaimersRow(failure)).isFalse();
    }

    /**
     * A wait on a row's update chain (a claimer that committed an instant before, now finishing), as PostgreSQL words
     * it; made from the server's message, as its timing cannot be arranged from outside (see
     * {@code PostgresClaimRetryTest}).
     */
    @Test
    void aWaitOnTheUpdateChainOfARowIsRetried() {
        String server = "SERROR\0C55P03\0Mcanceling statement due to lock timeout\0"
                + "Wwhile locking updated version (0,2) of tuple in relation \"leasehold_batches\"\0\0";
        SQLException failure = new PSQLException(new ServerErrorMessage(server));

        assertThat(failure.getMessage()).contains(PostgresSkipLockedWaits.UPDATE_CHAIN);
        assertThat(PostgresSkipLockedWaits.onNoClaimersRow(failure)).isTrue();
        assertThat(PostgresSkipLockedWaits.onNoClaimersRow(new SQLException("claiming", failure)))
                .as("found among the causes")
                .isTrue();
    }

    /** A wait with no row in its context: a table lock here; in a claim, the lock that extends a table. */
    @Test
    void aWaitOnNoRowIsRetried() throws SQLException {
        SQLException failure =
                whileHolding("LOCK TABLE rows_held IN ACCESS EXCLUSIVE MODE", "SELECT id FROM rows_held");

        assertThat(PostgresSkipLockedWaits.onNoClaimersRow(failure)).isTrue();
        assertThat(new PostgresDialect(new dev.leasehold.store.internal.Tables("leasehold_")).skipLockedWait(failure))
                .as("the dialect's answer")
                .isTrue();
    }

    @Test
    void aFailureThatIsNoLockTimeoutIsNotRetried() throws SQLException {
        try (Connection c = impatient.getConnection();
                Statement s = c.createStatement()) {
            SQLException failure = catchThrowableOfType(SQLException.class, () -> s.execute("SELECT 1 / 0"));

            assertThat(PostgresSkipLockedWaits.onNoClaimersRow(failure)).isFalse();
            assertThat(new StoreException("dividing", failure).retryable()).isFalse();
        }
    }

    /** The lock timeout {@code waiter} meets while another session holds {@code lock}. */
    private static SQLException whileHolding(String lock, String waiter) throws SQLException {
        try (Connection owner = holder.getConnection();
                Statement locking = owner.createStatement()) {
            owner.setAutoCommit(false);
            locking.execute(lock);
            try (Connection c = impatient.getConnection();
                    Statement s = c.createStatement()) {
                SQLException cause = catchThrowableOfType(SQLException.class, () -> s.execute(waiter));
                assertThat((Throwable) cause).as("the waiter's lock timeout").isNotNull();
                assertThat(cause.getSQLState()).isEqualTo("55P03");
                return cause;
            } finally {
                owner.rollback();
            }
        }
    }
}
