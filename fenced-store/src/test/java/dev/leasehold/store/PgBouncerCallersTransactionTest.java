package dev.leasehold.store;

import dev.leasehold.store.testing.PgBouncer;
import dev.leasehold.store.testing.PgBouncerDatabase;
import dev.leasehold.store.testing.WithPgBouncer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * {@link FenceGate#check(Connection, String, long)} in the caller's transaction through PgBouncer in transaction
 * pooling mode ({@link PgBouncer}: skipped unless set).
 */
@WithPgBouncer
class PgBouncerCallersTransactionTest extends CallersTransactionContract {

    private final PgBouncerDatabase database = new PgBouncerDatabase("callers_transaction");

    @Override
    protected DataSource dataSource() {
        return database.dataSource();
    }

    @Override
    protected int sessionsWaitingOnLocks(Connection connection) throws SQLException {
        return database.waitingOnLocks(connection);
    }

    @Override
    protected String sessionSettings(Connection connection) throws SQLException {
        return PostgresCallersTransactionTest.PostgresSessions.settings(connection);
    }

    @Override
    protected void setCallersLockTimeout(Connection tx) throws SQLException {
        try (Statement s = tx.createStatement()) {
            s.execute("SET LOCAL lock_timeout = '1234ms'");
        }
    }
}
