package dev.leasehold.store;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A plain DataSource whose connections come at a given isolation level, as a driver configured that way hands them
 * out (H2 has no database-wide default; PostgreSQL's tests use {@code default_transaction_isolation} instead).
 */
final class IsolatedDataSource implements DataSource {

    private final DataSource target;
    private final int isolation;

    IsolatedDataSource(DataSource target, int isolation) {
        this.target = target;
        this.isolation = isolation;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = target.getConnection();
        connection.setTransactionIsolation(isolation);
        return connection;
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
    }

    @Override
    public void setLoginTimeout(int seconds) {
    }

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return false;
    }
}
