package dev.leasehold.spring.store;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The starter's {@code FenceGate} gets its connections through this: it refuses one while a Spring transaction is
 * active on the thread and holds a connection of the same {@code DataSource}. A {@code FenceGate.write}, {@code call}
 * or {@code update} there would run in a transaction of its own, which commits before the caller's: the gate's check
 * would pass and end while the caller's writes wait, unfenced, for their commit (issue 43: a duplicate invoice
 * after a pause between the two commits). So the gate fails before it sends anything, and the message says what to
 * use instead. A gate made outside Spring, or this one with {@code leasehold.store.separate-transactions-allowed=true},
 * is unchanged.
 *
 * <p>Thread-safety: thread-safe, as the data source it wraps.
 */
final class SpringTransactionGuard implements DataSource {

    private final DataSource target;
    private final String name;

    SpringTransactionGuard(DataSource target, String name) {
        this.target = target;
        this.name = name;
    }

    @Override
    public Connection getConnection() throws SQLException {
        refuseInsideSpringTransaction();
        return target.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        refuseInsideSpringTransaction();
        return target.getConnection(username, password);
    }

    private void refuseInsideSpringTransaction() {
        if (TransactionSynchronizationManager.isActualTransactionActive()
                && TransactionSynchronizationManager.hasResource(target)) {
            throw new IllegalStateException("FenceGate refused to open a transaction of its own inside the Spring"
                    + " transaction active on this thread, on the same DataSource ('" + name + "'): nothing was sent."
                    + " FenceGate.write, call and update commit their check on their own connection before your"
                    + " transaction commits, so your transaction's writes would not be fenced. Fence your"
                    + " transaction instead: annotate the method @Fenced(\"resource\") (beside @Transactional), or"
                    + " call LeaseholdFence.check(resource) (or check(resource, token)) inside it. If you mean two"
                    + " separate transactions, set leasehold.store.separate-transactions-allowed=true");
        }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return target.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        target.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        target.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return target.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return target.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return type.isInstance(this) ? type.cast(this) : target.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return type.isInstance(this) || target.isWrapperFor(type);
    }

    @Override
    public String toString() {
        return target.toString();
    }
}
