package dev.leasehold.store.testing;

import dev.leasehold.testkit.PlainDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A data source that refuses the next {@code n} connections when told to (SQLState 08001, as a database that is down
 * would), then hands out its target's again: a store failure at a chosen moment. Thread-safe.
 */
public final class RefusingDataSource extends PlainDataSource {

    private final DataSource target;
    private final AtomicInteger refusals = new AtomicInteger();

    public RefusingDataSource(DataSource target) {
        this.target = target;
    }

    /** The next {@code n} calls of {@link #getConnection()} fail. */
    public void refuseNext(int n) {
        refusals.set(n);
    }

    @Override
    public Connection getConnection() throws SQLException {
        if (refusals.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new SQLException("connection refused (by the test)", "08001");
        }
        return target.getConnection();
    }
}
