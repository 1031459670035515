package dev.leasehold.spring.fence;

import dev.leasehold.store.FenceGate;
import dev.leasehold.store.StaleTokenException;
import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.core.Ordered;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The backstop of one Spring transaction's fence checks: registered with the transaction at its first check (and
 * bound as a transaction resource, so a {@code REQUIRES_NEW} transaction, which suspends both, gets its own), it
 * checks again in {@link #beforeCommit} that the transaction committing still holds every mark it passed.
 *
 * <ol>
 *   <li>The connection bound to the {@code DataSource} now must be the one the checks ran on (the same Spring
 *       {@code ConnectionHolder} and {@code Connection}): another one is another transaction, refused.</li>
 *   <li>Each (resource, token) that passed is checked again with {@link FenceGate#check} on that connection. Within
 *       the same database transaction this takes no new lock (it holds them) and costs one statement. It matters when
 *       the lock was dropped after the check: a rollback to a savepoint taken before it ({@code NESTED}: PostgreSQL
 *       releases the locks taken after a savepoint when rolling back to it), or a statement of the caller's that
 *       committed the transaction implicitly (DDL on H2 and MariaDB). Then the check takes the lock again, in the
 *       transaction that is about to commit, and a mark raised meanwhile refuses it: {@link StaleTokenException}
 *       from here rolls everything back (Spring rolls back on an exception from {@code beforeCommit}).</li>
 *   <li>A check that failed (stale, or the database failed) made the transaction rollback-only; if the caller caught
 *       the exception and the commit still comes here, it throws again: nothing commits.</li>
 * </ol>
 * Ordered last, so other synchronizations' {@code beforeCommit} writes (a Hibernate session flushed by Spring) come
 * first; JPA's own flush at commit comes after every {@code beforeCommit}, still inside the locked transaction.
 *
 * <p>Thread-safety: confined to the transaction's thread.
 */
final class FenceSynchronization implements TransactionSynchronization {

    private final Object key;
    private final FenceGate gate;
    private final DataSource dataSource;
    private final Object holder;
    private final Connection connection;
    /** Resource to the highest token that passed in this transaction. */
    private final Map<String, Long> passed = new LinkedHashMap<>();

    private RuntimeException refused;

    private FenceSynchronization(
            Object key, FenceGate gate, DataSource dataSource, Object holder, Connection connection) {
        this.key = key;
        this.gate = gate;
        this.dataSource = dataSource;
        this.holder = holder;
        this.connection = connection;
    }

    /**
     * This transaction's backstop for {@code dataSource}, registered on first use.
     *
     * @param key        the transaction resource key (one per fence and data source)
     * @param connection the connection the check runs on, bound to the transaction
     */
    static FenceSynchronization of(Object key, FenceGate gate, DataSource dataSource, Connection connection) {
        FenceSynchronization bound = (FenceSynchronization) TransactionSynchronizationManager.getResource(key);
        if (bound != null) {
            return bound;
        }
        FenceSynchronization sync = new FenceSynchronization(
                key, gate, dataSource, TransactionSynchronizationManager.getResource(dataSource), connection);
        TransactionSynchronizationManager.registerSynchronization(sync);
        TransactionSynchronizationManager.bindResource(key, sync);
        return sync;
    }

    /** Whether {@code connection} is the one this transaction's checks ran on. */
    boolean sameTransaction(Connection now) {
        return holder == TransactionSynchronizationManager.getResource(dataSource) && connection == now;
    }

    void passed(String resource, long token) {
        passed.merge(resource, token, Math::max);
    }

    void refused(RuntimeException cause) {
        if (refused == null) {
            refused = cause;
        }
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public void suspend() {
        TransactionSynchronizationManager.unbindResource(key);
    }

    @Override
    public void resume() {
        TransactionSynchronizationManager.bindResource(key, this);
    }

    @Override
    public void beforeCommit(boolean readOnly) {
        if (refused != null) {
            throw new IllegalStateException(
                    "A fence check of this transaction failed (" + refused.getMessage() + "), and the exception was"
                            + " caught: the transaction is rolled back, nothing of it commits",
                    refused);
        }
        if (passed.isEmpty()) {
            return;
        }
        Connection now = DataSourceUtils.getConnection(dataSource);
        try {
            if (!sameTransaction(now)) {
                throw new IllegalStateException("The transaction committing is not the one that passed the fence"
                        + " check of " + passed + " (another connection is bound to the DataSource): rolled back");
            }
            passed.forEach((resource, token) -> gate.check(now, resource, token));
        } finally {
            DataSourceUtils.releaseConnection(now, dataSource);
        }
    }

    @Override
    public void afterCompletion(int status) {
        if (TransactionSynchronizationManager.hasResource(key)) {
            TransactionSynchronizationManager.unbindResource(key);
        }
    }
}
