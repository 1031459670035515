package dev.leasehold.spring.locks;

import dev.leasehold.store.FencedSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.mariadb.jdbc.MariaDbDataSource;

/** The database contract on a real MariaDB server, in a database of its own. */
@EnabledIfEnvironmentVariable(
        named = "LEASEHOLD_TEST_MARIADB_URL",
        matches = ".*\\S.*",
        disabledReason = "MariaDB tests skipped: run with LEASEHOLD_TEST_MARIADB_URL set (source /work/srv/env.sh)")
class MariaDbLockRegistryTest extends JdbcLockRegistryContract {

    private static final String DATABASE = "leasehold_test_lock_registry";
    private static final String URL;

    static {
        String server = System.getenv("LEASEHOLD_TEST_MARIADB_URL");
        URL = server == null ? null : server.replaceFirst("/leasehold_test([?]|$)", "/" + DATABASE + "$1");
        if (server != null && !server.isBlank()) {
            try (Connection c = dataSource(server).getConnection();
                    Statement s = c.createStatement()) {
                s.execute("DROP DATABASE IF EXISTS " + DATABASE);
                s.execute("CREATE DATABASE " + DATABASE + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
            } catch (SQLException e) {
                throw new IllegalStateException("cannot create " + DATABASE + " on LEASEHOLD_TEST_MARIADB_URL", e);
            }
            FencedSchema.install(dataSource(URL));
        }
    }

    private static DataSource dataSource(String url) {
        try {
            MariaDbDataSource ds = new MariaDbDataSource();
            ds.setUrl(url);
            return ds;
        } catch (SQLException e) {
            throw new IllegalStateException("bad LEASEHOLD_TEST_MARIADB_URL: " + e.getMessage(), e);
        }
    }

    @Override
    protected DataSource newPool() {
        return dataSource(URL);
    }
}
