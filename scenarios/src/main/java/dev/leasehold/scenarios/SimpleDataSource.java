package dev.leasehold.scenarios;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/** A DataSource over DriverManager for {@code --jdbc URL}: a new connection per call, no pool. */
public final class SimpleDataSource extends PlainDataSource {

    private final String url;
    private final String user;
    private final String password;

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
