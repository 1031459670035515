package dev.leasehold.store.testing;

import dev.leasehold.testkit.PlainDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * A plain DataSource whose connections come at a given isolation level, as a driver configured that way hands them
 * out (H2 has no database-wide default; PostgreSQL's tests use {@code default_transaction_isolation} instead).
 */
public final class IsolatedDataSource extends PlainDataSource {

    private final DataSource target;
    private final int isolation;

    public IsolatedDataSource(DataSource target, int isolation) {
        this.target = target;
        this.isolation = isolation;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = target.getConnection();
        connection.setTransactionIsolation(isolation);
        return connection;
    }
}
