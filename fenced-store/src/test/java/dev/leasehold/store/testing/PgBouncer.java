package dev.leasehold.store.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The PgBouncer (transaction pooling) in front of a PostgreSQL that the PgBouncer subclasses of the contracts run
 * through: the JDBC URL (user, password, {@code prepareThreshold=0}) in the environment variable {@value #VARIABLE}.
 * Without it they are skipped ({@link WithPgBouncer}), with one line that says how to run them.
 *
 * <p>Session settings cannot travel through a transaction-mode bouncer (a {@code SET} would stay on whichever server
 * connection ran it, and PgBouncer refuses the {@code options} startup parameter), so what a test needs per
 * connection is set where PostgreSQL applies it when a server connection starts: on the database ({@code ALTER
 * DATABASE ... SET}) or on a role in that database ({@code ALTER ROLE ... IN DATABASE ... SET}). {@code .ci/pgbouncer}
 * routes every database name to the cluster and looks passwords up there, so the roles and databases made here are
 * reachable through the bouncer.
 */
public final class PgBouncer {

    public static final String VARIABLE = "LEASEHOLD_TEST_PGBOUNCER_URL";
    public static final String HOW_TO_RUN =
            "PgBouncer tests skipped: start one with '.ci/pgbouncer start /tmp/pgb' and run"
                    + " with LEASEHOLD_TEST_PGBOUNCER_URL=<the URL it prints>";

    private static final Pattern DATABASE = Pattern.compile("^(jdbc:postgresql://[^/]+/)([^?]+)(.*)$");
    private static final Pattern USER = Pattern.compile("([?&]user=)([^&]*)");
    private static final Pattern PASSWORD = Pattern.compile("[?&]password=([^&]*)");

    private PgBouncer() {}

    /** The bouncer's URL; skips the calling test class when none is set. */
    public static String url() {
        String url = System.getenv(VARIABLE);
        Assumptions.assumeTrue(url != null && !url.isBlank(), HOW_TO_RUN);
        return url;
    }

    /**
     * A new, empty database {@code leasehold_test_<name>} (dropped first, with the server connections PgBouncer
     * still holds to it), whose statements wait at most 10 s for a lock; its data source, through the bouncer.
     */
    public static synchronized DataSource freshDatabase(String name) {
        String database = "leasehold_test_" + name;
        try (Connection c = dataSource(url()).getConnection();
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + database);
            s.execute("ALTER DATABASE " + database + " SET lock_timeout = 10000");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + database + " through " + VARIABLE, e);
        }
        return dataSource(withDatabase(url(), database));
    }

    /**
     * The database {@code leasehold_test_<name>} as the role {@code leasehold_<role>} (created with the URL's password
     * if missing), with {@code settings} applied to every server connection that role opens there.
     */
    public static synchronized DataSource as(String role, String name, Map<String, String> settings) {
        String database = "leasehold_test_" + name;
        String user = "leasehold_" + role;
        String url = url();
        try (Connection c = dataSource(url).getConnection();
                Statement s = c.createStatement()) {
            s.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '" + user + "') THEN"
                    + " CREATE ROLE " + user + " LOGIN SUPERUSER PASSWORD '" + password(url) + "'; END IF; END $$");
            for (Map.Entry<String, String> setting : settings.entrySet()) {
                s.execute("ALTER ROLE " + user + " IN DATABASE " + database + " SET " + setting.getKey() + " = '"
                        + setting.getValue() + "'");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create role " + user + " through " + VARIABLE, e);
        }
        Matcher m = USER.matcher(withDatabase(url, database));
        return dataSource(m.replaceFirst("$1" + user));
    }

    /** Sessions of the cluster waiting on a lock in the database {@code leasehold_test_<name>}. */
    public static int waitingOnLocks(Connection connection, String name) throws SQLException {
        try (Statement s = connection.createStatement();
                java.sql.ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type"
                        + " = 'Lock' AND datname = 'leasehold_test_" + name + "'")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    public static DataSource dataSource(String url) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(url);
        return ds;
    }

    private static String withDatabase(String url, String database) {
        Matcher m = DATABASE.matcher(url);
        if (!m.matches()) {
            throw new IllegalStateException(VARIABLE + " is not a jdbc:postgresql://host:port/database URL: " + url);
        }
        return m.group(1) + database + m.group(3);
    }

    private static String password(String url) {
        Matcher m = PASSWORD.matcher(url);
        if (!m.find()) {
            throw new IllegalStateException(VARIABLE + " carries no password=: " + url);
        }
        return m.group(1);
    }
}
