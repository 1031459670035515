package dev.leasehold.store.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.leasehold.store.StoreException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * The claim tests' reading of PostgreSQL's lock timeouts, on real ones: a wait on a row another session holds fails
 * a claim test; a wait on a lock on a whole table is allowed; a failure that is no lock timeout is not.
 */
class PostgresLockWaitsTest {

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
    void aWaitOnARowAnotherSessionHoldsIsAClaimersRow() throws SQLException {
        StoreException failure = whileHolding(
                "SELECT id FROM rows_held WHERE id = 1 FOR UPDATE", "SELECT id FROM rows_held WHERE id = 1 FOR UPDATE");

        assertThat(PostgresLockWaits.CLAIMS.onNoClaimersRow(failure)).isFalse();
        assertThat(PostgresLockWaits.CLAIMS.where(failure)).startsWith("where: while locking tuple");
    }

    /**
     * A wait on a row's update chain (a claimer that committed an instant before, now finishing), as PostgreSQL words
     * it; made from the server's message, as its timing cannot be arranged from outside.
     */
    @Test
    void aWaitOnTheUpdateChainOfARowIsOnNoClaimersRow() {
        String server = "SERROR\0C55P03\0Mcanceling statement due to lock timeout\0"
                + "Wwhile locking updated version (0,2) of tuple in relation \"leasehold_batches\"\0\0";
        StoreException failure = new StoreException("claiming", new PSQLException(new ServerErrorMessage(server)));

        assertThat(PostgresLockWaits.CLAIMS.onNoClaimersRow(failure)).isTrue();
        assertThat(PostgresLockWaits.CLAIMS.where(failure)).startsWith("where: " + PostgresLockWaits.UPDATE_CHAIN);
    }

    /** A wait with no error context: a table lock here; in the claim tests, the lock that extends a table. */
    @Test
    void aWaitWithNoErrorContextIsOnNoClaimersRow() throws SQLException {
        StoreException failure =
                whileHolding("LOCK TABLE rows_held IN ACCESS EXCLUSIVE MODE", "SELECT id FROM rows_held");

        assertThat(PostgresLockWaits.CLAIMS.onNoClaimersRow(failure)).isTrue();
        assertThat(PostgresLockWaits.CLAIMS.where(failure)).isEmpty();
    }

    @Test
    void aFailureThatIsNoLockTimeoutIsNotAllowed() throws SQLException {
        try (Connection c = impatient.getConnection();
                Statement s = c.createStatement()) {
            SQLException cause = catchThrowableOfType(SQLException.class, () -> s.execute("SELECT 1 / 0"));
            StoreException failure = new StoreException("dividing", cause);

            assertThat(PostgresLockWaits.CLAIMS.onNoClaimersRow(failure)).isFalse();
            assertThat(ClaimWaits.NONE.onNoClaimersRow(failure)).isFalse();
        }
    }

    /** The lock timeout {@code waiter} meets, as a store reports it, while another session holds {@code lock}. */
    private static StoreException whileHolding(String lock, String waiter) throws SQLException {
        try (Connection owner = holder.getConnection();
                Statement locking = owner.createStatement()) {
            owner.setAutoCommit(false);
            locking.execute(lock);
            try (Connection c = impatient.getConnection();
                    Statement s = c.createStatement()) {
                SQLException cause = catchThrowableOfType(SQLException.class, () -> s.execute(waiter));
                assertThat((Throwable) cause).as("the waiter's lock timeout").isNotNull();
                assertThat(cause.getSQLState()).isEqualTo("55P03");
                return new StoreException("claiming", cause);
            } finally {
                owner.rollback();
            }
        }
    }
}
