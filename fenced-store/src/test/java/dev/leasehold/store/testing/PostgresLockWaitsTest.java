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

    @Test
    void aWaitOnALockOnTheWholeTableIsOnNoClaimersRow() throws SQLException {
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
                assertThat(cause.getSQLState()).isEqualTo("55P03");
                return new StoreException("claiming", cause);
            } finally {
                owner.rollback();
            }
        }
    }
}
