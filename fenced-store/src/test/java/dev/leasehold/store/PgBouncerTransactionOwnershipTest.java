package dev.leasehold.store;

import dev.leasehold.store.testing.PgBouncer;
import dev.leasehold.store.testing.PgBouncerDatabase;
import dev.leasehold.store.testing.WithPgBouncer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The transaction-ownership contract through PgBouncer in transaction pooling mode ({@link PgBouncer}: skipped unless
 * its URL is set). Connections at a given isolation come from a role whose {@code default_transaction_isolation} is
 * set in the database, as a database default would be: a session {@code SET} cannot travel through the bouncer.
 */
@WithPgBouncer
class PgBouncerTransactionOwnershipTest extends TransactionOwnershipContract {

    private final PgBouncerDatabase database = new PgBouncerDatabase("tx_ownership");

    @Override
    protected DataSource database() {
        return database.dataSource();
    }

    @Override
    protected DataSource patient() {
        return database.as("patient", Map.of("lock_timeout", "600000"));
    }

    @Override
    protected DataSource plainAt(Isolation isolation) {
        String level = isolation.name().toLowerCase(Locale.ROOT);
        return database.as(
                level, Map.of("default_transaction_isolation", level.replace('_', ' '), "lock_timeout", "10000"));
    }

    /** A session SET would stay on whichever server connection ran it: HikariCP gets {@link #plainAt} instead. */
    @Override
    protected boolean sessionSettingsStay() {
        return false;
    }

    @Override
    protected int sessionsWaitingOnLocks(Connection connection) throws SQLException {
        return database.waitingOnLocks(connection);
    }

    @Override
    protected long lockTimeoutMillis(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT setting FROM pg_settings WHERE name = 'lock_timeout'")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
