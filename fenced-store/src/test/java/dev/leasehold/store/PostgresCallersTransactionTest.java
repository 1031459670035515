package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.testing.SharedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** {@link FenceGate#check(Connection, String, long)} in the caller's transaction on PostgreSQL 17. */
class PostgresCallersTransactionTest extends CallersTransactionContract {

    private DataSource database;

    @Override
    protected synchronized DataSource dataSource() {
        if (database == null) {
            database = SharedPostgres.freshDatabase("callers_transaction");
        }
        return database;
    }

    /**
     * A transaction made read-only in SQL, which the driver does not see: the database refuses the check's locking
     * read (25006), and the answer is the same {@link IllegalStateException} as for a read-only connection.
     */
    @Test
    void aTransactionMadeReadOnlyInSqlGetsTheSameClearAnswer() throws SQLException {
        FenceGate gate = new FenceGate(dataSource());
        gate.advance("invoices-read-only", 7);
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            try (Statement s = tx.createStatement()) {
                s.execute("SET TRANSACTION READ ONLY");
            }
            assertThatThrownBy(() -> gate.check(tx, "invoices-read-only", 7))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("read-only transaction")
                    .hasMessageContaining("roll this transaction back");
            tx.rollback();
        }
    }

    @Override
    protected int sessionsWaitingOnLocks(Connection connection) throws SQLException {
        return PostgresSessions.waitingOnLocks(connection);
    }

    @Override
    protected String sessionSettings(Connection connection) throws SQLException {
        return PostgresSessions.settings(connection);
    }

    @Override
    protected void setCallersLockTimeout(Connection tx) throws SQLException {
        try (Statement s = tx.createStatement()) {
            s.execute("SET LOCAL lock_timeout = '1234ms'");
        }
    }

    /** What the PostgreSQL and PgBouncer subclasses read from the server. */
    static final class PostgresSessions {
        private PostgresSessions() {}

        static int waitingOnLocks(Connection connection) throws SQLException {
            try (Statement s = connection.createStatement();
                    ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                            + " AND datname = current_database()")) {
                rs.next();
                return rs.getInt(1);
            }
        }

        static String settings(Connection connection) throws SQLException {
            try (Statement s = connection.createStatement();
                    ResultSet rs = s.executeQuery("SELECT 'lock_timeout=' || current_setting('lock_timeout')"
                            + " || ' statement_timeout=' || current_setting('statement_timeout')"
                            + " || ' idle=' || current_setting('idle_in_transaction_session_timeout')")) {
                rs.next();
                return rs.getString(1);
            }
        }
    }
}
