package dev.leasehold.micrometer;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The store meters on an embedded PostgreSQL 17, a fresh database per test. */
class PostgresStoreMetersTest extends StoreMetersContract {

    private static final AtomicInteger databases = new AtomicInteger();
    private static EmbeddedPostgres server;

    @BeforeAll
    static void start() throws IOException {
        if ("root".equals(System.getProperty("user.name"))) {
            throw new IllegalStateException("PostgreSQL refuses to run as root: run the build as an unprivileged user");
        }
        server = EmbeddedPostgres.builder()
                .setPGStartupWait(Duration.ofSeconds(60)) // zonky waits 10 s, too little on a busy machine
                .start();
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
    }

    @Override
    protected DataSource freshDatabase() {
        String name = "meters_" + databases.incrementAndGet();
        try (Connection c = server.getPostgresDatabase().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name, e);
        }
        return server.getDatabase("postgres", name);
    }
}
