package dev.leasehold.testkit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/** A DataSource over DriverManager for a JDBC URL: a new connection per call, no pool. Thread-safe (immutable). */
public final class SimpleDataSource extends PlainDataSource {

    private final String url;
    private final String user;
    private final String password;

    /**
     * @param url      a JDBC URL (a bad one fails at {@link #getConnection()}, with the driver's message)
     * @param user     null to connect without a user and password
     * @param password the password, or null
     */
    public SimpleDataSource(String url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return user == null ? DriverManager.getConnection(url) : DriverManager.getConnection(url, user, password);
    }
}
