package dev.leasehold.store.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;
import org.mariadb.jdbc.MariaDbDataSource;

/**
 * The MariaDB server the MariaDB subclasses of the contracts run against: the JDBC URL (with credentials) in the
 * environment variable {@value #VARIABLE}. Without it they are skipped ({@link WithMariaDb}), with one line that says
 * how to run them. Each test class gets a database of its own, {@code leasehold_test_<name>},
 * dropped and created afresh ({@code .ci/mariadb} grants the user every {@code leasehold_test%} database).
 */
public final class MariaDb {

    public static final String VARIABLE = "LEASEHOLD_TEST_MARIADB_URL";
    public static final String HOW_TO_RUN =
            "MariaDB tests skipped: start a server with '.ci/mariadb start /tmp/mdb' and run"
                    + " with LEASEHOLD_TEST_MARIADB_URL=<the URL it prints>";

    private MariaDb() {}

    /** The server's URL; skips the calling test class when none is set. */
    public static String url() {
        String url = System.getenv(VARIABLE);
        Assumptions.assumeTrue(url != null && !url.isBlank(), HOW_TO_RUN);
        return url;
    }

    /** A new, empty database {@code leasehold_test_<name>} on the server; its data source, with extra URL options. */
    public static DataSource freshDatabase(String name, String options) {
        String database = "leasehold_test_" + name;
        try (Connection c = dataSource(url(), "").getConnection();
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database);
            s.execute("CREATE DATABASE " + database + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot create database " + database + " on " + VARIABLE
                            + " (does the user have rights on leasehold_test%?)",
                    e);
        }
        return dataSource(url().replaceFirst("/leasehold_test([?]|$)", "/" + database + "$1"), options);
    }

    public static DataSource freshDatabase(String name) {
        return freshDatabase(name, "");
    }

    /** The same database again, with other URL options (say another lock timeout). */
    public static DataSource dataSource(String url, String options) {
        try {
            MariaDbDataSource ds = new MariaDbDataSource();
            ds.setUrl(options.isEmpty() ? url : url + (url.contains("?") ? "&" : "?") + options);
            return ds;
        } catch (SQLException e) {
            throw new IllegalStateException("bad " + VARIABLE + ": " + e.getMessage(), e);
        }
    }

    /**
     * Connections of the server waiting on a row lock in the database {@code connection} is connected to (another test
     * JVM's classes use the same server at the same time, each in a database of its own). InnoDB refreshes the table behind innodb_trx only after 100 ms
     * without reads of it: this call lets 150 ms pass first (a poll interval, not a synchronisation), or a caller that
     * polls every few milliseconds would read a stale table forever.
     */
    public static int waitingOnLocks(Connection connection) throws SQLException {
        java.util.concurrent.locks.LockSupport.parkNanos(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(150));
        try (Statement s = connection.createStatement();
                java.sql.ResultSet rs = s.executeQuery(
                        "SELECT COUNT(*) FROM information_schema.innodb_trx t JOIN information_schema.processlist p"
                                + " ON p.id = t.trx_mysql_thread_id WHERE t.trx_state = 'LOCK WAIT'"
                                + " AND p.db = DATABASE()")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
