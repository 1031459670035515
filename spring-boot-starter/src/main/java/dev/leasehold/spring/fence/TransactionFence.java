package dev.leasehold.spring.fence;

import dev.leasehold.spring.LeaseholdFence;
import dev.leasehold.store.FenceGate;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.interceptor.TransactionAspectSupport;
import org.springframework.transaction.support.ResourceHolderSupport;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The starter's {@link LeaseholdFence}: the gate's check on the connection Spring bound to the current transaction.
 *
 * <p>Steps, each before any statement: refuse a JTA context, refuse without an actual transaction
 * ({@code isActualTransactionActive()}: {@code isSynchronizationActive()} is also true under {@code SUPPORTS} with no
 * transaction), find the {@code DataSource} the transaction is bound to, refuse if this instance does not lead, take
 * the bound connection ({@code DataSourceUtils.getConnection}) and make sure it is the transaction's
 * ({@code isConnectionTransactional}: a different {@code DataSource} instance would otherwise hand out a separate
 * auto-commit connection), then {@link FenceGate#check}. A check that fails marks the transaction rollback-only three
 * ways, so that whichever manager runs it (JDBC, JPA) and whoever called (an interceptor, a
 * {@code TransactionTemplate}) nothing commits: the interceptor's transaction status if there is one, the bound
 * connection holder, and the {@link FenceSynchronization}, whose {@code beforeCommit} throws.
 *
 * <p>Thread-safety: thread-safe.
 */
final class TransactionFence implements LeaseholdFence {

    private final FenceGate gate;
    /** The context's data sources by bean name. */
    private final Map<String, DataSource> dataSources;
    /** The unique or primary one, or null: used whenever the transaction holds it. */
    private final DataSource primary;

    private final ElectionTokens tokens;
    /** The JTA transaction managers' bean names, asked once the context runs (the beans' types are known then). */
    private final Supplier<List<String>> jtaManagers;

    private volatile List<String> jta;
    private final Object key = new Object();

    TransactionFence(
            FenceGate gate,
            Map<String, DataSource> dataSources,
            DataSource primary,
            ElectionTokens tokens,
            Supplier<List<String>> jtaManagers) {
        this.gate = gate;
        this.dataSources = Map.copyOf(dataSources);
        this.primary = primary;
        this.tokens = tokens;
        this.jtaManagers = jtaManagers;
    }

    @Override
    public void check(String resource) {
        check("", resource);
    }

    /** The check with the current grant's token of {@code role}'s election ("": the context's only one). */
    void check(String role, String resource) {
        requireResource(resource);
        DataSource dataSource = transactional("@Fenced(\"" + resource + "\") / LeaseholdFence.check");
        long token = tokens.current(role, resource);
        run(dataSource, resource, token);
    }

    @Override
    public void check(String resource, long token) {
        run(transactional("LeaseholdFence.check(\"" + resource + "\", " + token + ")"), resource, token);
    }

    private static void requireResource(String resource) {
        if (resource == null || resource.isBlank()) {
            throw new IllegalArgumentException("resource must not be blank (the fenced resource's name), was "
                    + (resource == null ? "null" : "'" + resource + "'"));
        }
    }

    private DataSource transactional(String what) {
        List<String> jtaNames = jta;
        if (jtaNames == null) {
            jtaNames = List.copyOf(jtaManagers.get());
            jta = jtaNames;
        }
        if (!jtaNames.isEmpty()) {
            throw new IllegalStateException(what + " is not supported with JTA/XA transactions (the transaction"
                    + " manager " + jtaNames + " is a JtaTransactionManager): the fence's lock must be taken on the"
                    + " one local JDBC transaction that commits your writes. Use a DataSourceTransactionManager,"
                    + " JdbcTransactionManager or JpaTransactionManager for the fenced writes");
        }
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException(what + " needs an active transaction, and none is: run it inside a"
                    + " @Transactional method (or a TransactionTemplate), with the writes it fences. Outside one each"
                    + " statement commits on its own and the check could fence nothing");
        }
        if (primary != null && TransactionSynchronizationManager.hasResource(primary)) {
            return primary;
        }
        List<String> bound = new ArrayList<>();
        DataSource found = null;
        for (Map.Entry<String, DataSource> each : dataSources.entrySet()) {
            if (TransactionSynchronizationManager.hasResource(each.getValue())) {
                bound.add(each.getKey());
                found = each.getValue();
            }
        }
        if (bound.size() == 1) {
            return found;
        }
        if (bound.isEmpty()) {
            throw new IllegalStateException(what + ": the active transaction holds no connection of the DataSource"
                    + " beans " + dataSources.keySet() + " (its transaction manager is not one of theirs). Run the"
                    + " fenced writes in a transaction of the DataSource that holds them and the fence table"
                    + " (@Transactional(transactionManager = \"...\"))");
        }
        throw new IllegalStateException(what + ": the active transaction holds connections of several DataSource"
                + " beans " + bound + " and none is the primary one: mark the one the fenced writes and the fence"
                + " table live in @Primary");
    }

    private void run(DataSource dataSource, String resource, long token) {
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            if (!DataSourceUtils.isConnectionTransactional(connection, dataSource)) {
                throw new IllegalStateException("LeaseholdFence: the connection Spring gave for the DataSource is not"
                        + " the transaction's: the fence would commit on its own. Make sure the transaction manager"
                        + " and the fenced writes use the same DataSource bean");
            }
            FenceSynchronization backstop = FenceSynchronization.of(key, gate, dataSource, connection);
            if (!backstop.sameTransaction(connection)) {
                throw new IllegalStateException("LeaseholdFence: the connection bound to the DataSource changed within"
                        + " the transaction since its first fence check: refused, roll back");
            }
            try {
                gate.check(connection, resource, token);
            } catch (RuntimeException e) {
                rollbackOnly(dataSource, backstop, e);
                throw e;
            }
            backstop.passed(resource, token);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    private static void rollbackOnly(DataSource dataSource, FenceSynchronization backstop, RuntimeException cause) {
        backstop.refused(cause);
        if (TransactionSynchronizationManager.getResource(dataSource) instanceof ResourceHolderSupport holder) {
            holder.setRollbackOnly();
        }
        try {
            TransactionAspectSupport.currentTransactionStatus().setRollbackOnly();
        } catch (NoTransactionException e) {
            // not in a @Transactional method (a TransactionTemplate, say): the holder and the backstop suffice
        }
    }
}
