package dev.leasehold.store.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Databases of their own on the one shared embedded PostgreSQL 17 ({@link EmbeddedPostgresSupport#shared()}), for the
 * contracts that need only a database of their own, not a server of their own: each asks for a fresh database by
 * name, and the server stops when the test JVM exits. Saves a server start (about two seconds) per test class.
 */
public final class SharedPostgres {

    private SharedPostgres() {}

    /** A new, empty database called {@code name} (dropped first if a previous class left it), as the superuser. */
    public static synchronized DataSource freshDatabase(String name) {
        EmbeddedPostgres pg = server();
        try (Connection c = pg.getPostgresDatabase().getConnection();
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name);
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name, e);
        }
        return pg.getDatabase("postgres", name, Map.of("options", "-c lock_timeout=10000"));
    }

    /** The database {@code name}, as the superuser; a statement that waits longer than {@code millis} for a lock fails. */
    public static synchronized DataSource withLockTimeout(String name, int millis) {
        return server().getDatabase("postgres", name, Map.of("options", "-c lock_timeout=" + millis));
    }

    /** The same database, connected as {@code user} (the embedded server trusts local connections). */
    public static synchronized DataSource as(String user, String database) {
        return server().getDatabase(user, database);
    }

    /** The shared server's port on loopback (for a proxy in front of it). */
    public static synchronized int port() {
        return server().getPort();
    }

    private static EmbeddedPostgres server() {
        return EmbeddedPostgresSupport.shared();
    }
}
