package dev.leasehold.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;

/**
 * The transaction-ownership contract on a real PostgreSQL 17. Connections at a given isolation come from the
 * server's {@code default_transaction_isolation}, set per connection as a database default would be.
 */
class PostgresTransactionOwnershipTest extends TransactionOwnershipContract {

    private static final String DATABASE = "tx_ownership";
    private DataSource database;

    @BeforeAll
    void createDatabase() throws SQLException {
        DataSource admin = EmbeddedPostgresSupport.shared().getPostgresDatabase();
        try (Connection c = admin.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + DATABASE + "'")) {
            if (!rs.next()) {
                s.execute("CREATE DATABASE " + DATABASE);
            }
        }
        database = at("read\\ committed");
    }

    private DataSource at(String isolation) {
        return EmbeddedPostgresSupport.shared().getDatabase("postgres", DATABASE, Map.of("options",
                "-c default_transaction_isolation=" + isolation + " -c lock_timeout=10000"));
    }

    @Override
    protected DataSource database() {
        return database;
    }

    @Override
    protected DataSource plainAt(Isolation isolation) {
        return at(isolation.name().toLowerCase().replace("_", "\\ "));
    }

    @Override
    protected int sessionsWaitingOnLocks(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                     + " AND datname = '" + DATABASE + "'")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
