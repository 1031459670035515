package dev.leasehold.store;

import dev.leasehold.store.testing.PgBouncer;
import dev.leasehold.store.testing.WithPgBouncer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;

/**
 * The transaction-ownership contract through PgBouncer in transaction pooling mode ({@link PgBouncer}: skipped unless
 * its URL is set). Connections at a given isolation come from a role whose {@code default_transaction_isolation} is
 * set in the database, as a database default would be: a session {@code SET} cannot travel through the bouncer.
 */
@WithPgBouncer
class PgBouncerTransactionOwnershipTest extends TransactionOwnershipContract {

    private static final String NAME = "tx_ownership";
    private DataSource database;
    private DataSource patient;

    @BeforeAll
    void createDatabase() {
        database = PgBouncer.freshDatabase(NAME);
        patient = PgBouncer.as("patient", NAME, Map.of("lock_timeout", "600000"));
    }

    @Override
    protected DataSource database() {
        return database;
    }

    @Override
    protected DataSource patient() {
        return patient;
    }

    @Override
    protected DataSource plainAt(Isolation isolation) {
        String level = isolation.name().toLowerCase(Locale.ROOT);
        return PgBouncer.as(
                level, NAME, Map.of("default_transaction_isolation", level.replace('_', ' '), "lock_timeout", "10000"));
    }

    /** A session SET would stay on whichever server connection ran it: HikariCP gets {@link #plainAt} instead. */
    @Override
    protected boolean sessionSettingsStay() {
        return false;
    }

    @Override
    protected int sessionsWaitingOnLocks(Connection connection) throws SQLException {
        return PgBouncer.waitingOnLocks(connection, NAME);
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
