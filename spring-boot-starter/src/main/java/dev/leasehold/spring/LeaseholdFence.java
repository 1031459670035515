package dev.leasehold.spring;

import dev.leasehold.store.FenceGate;
import dev.leasehold.store.StaleTokenException;
import dev.leasehold.store.StoreException;

/**
 * The fence check inside the Spring transaction your writes run in (a {@code @Transactional} method's, a
 * {@code TransactionTemplate}'s): JPA, {@code JdbcTemplate}, jOOQ or plain JDBC through Spring's connection. The
 * starter's bean runs {@link FenceGate#check(java.sql.Connection, String, long)} on the connection Spring bound to the
 * transaction, so the gate's lock on the resource's mark is held until YOUR transaction commits or rolls back: every
 * write of it, before or after the check, JPA's flush at commit included, is kept only if no higher token became the
 * mark first, and a new leader's {@code FenceGate.advance} returns only once this transaction ended. {@link Fenced} on
 * a method does the same before the method's body. See docs/your-transaction.md.
 *
 * <p>Each check, in this order, before any statement is sent:
 * <ol>
 *   <li>refused with {@link IllegalStateException} if no transaction is active (name: {@code @Transactional}), if the
 *       transaction manager is a {@code JtaTransactionManager} (JTA/XA is not supported), or if the transaction holds
 *       no connection of a {@code DataSource} of the context (or several, none of them the primary one);</li>
 *   <li>{@link NotLeaderException} if the token is the current grant's ({@link #check(String)}) and this instance does
 *       not lead its election (no grant, or the grant was withdrawn);</li>
 *   <li>the gate's check on the transaction's connection: a lower token marks the transaction rollback-only, then
 *       throws {@link StaleTokenException}; a database failure marks it rollback-only too and throws
 *       {@link StoreException}.</li>
 * </ol>
 * A check that passed registers a backstop with the transaction: just before the commit it checks again, on the
 * connection the transaction commits, that the token still holds the mark, so a rollback to a savepoint taken before
 * the check ({@code NESTED}), which on PostgreSQL drops the lock, or a statement that committed the transaction
 * implicitly (DDL on H2 or MariaDB), cannot let a stale write commit: if the check fails there, the commit throws and
 * the transaction is rolled back.
 *
 * <p>IMPORTANT: never catch {@link StaleTokenException} and go on as if written: the transaction is rollback-only and
 * nothing of it will commit.
 *
 * <p>Thread-safety: the starter's bean is thread-safe; each check concerns the calling thread's transaction.
 */
public interface LeaseholdFence {

    /**
     * Checks the current grant's token of the context's election in the current transaction.
     *
     * @param resource the fenced resource's name: not blank, at most 200 characters
     * @throws IllegalStateException    if no transaction is active, it is a JTA transaction, it holds no connection of
     *                                  this context's {@code DataSource}s, the context has no election, or it has
     *                                  several (then name the role with {@code @Fenced(value, role = ...)} or pass the
     *                                  token: {@link #check(String, long)}); also the gate's refusals (a read-only
     *                                  transaction)
     * @throws IllegalArgumentException if the resource is blank or too long
     * @throws NotLeaderException       if this instance does not lead the election (nothing was sent)
     * @throws StaleTokenException      if a higher token is the resource's mark (the transaction is rollback-only)
     * @throws StoreException           if the database failed (the transaction is rollback-only)
     */
    void check(String resource);

    /**
     * Checks an explicit token in the current transaction: a partition's, a lock's, or a grant's you read yourself.
     *
     * @param resource the fenced resource's name: not blank, at most 200 characters
     * @param token    the writer's fencing token, positive
     * @throws IllegalStateException    if no transaction is active, it is a JTA transaction, or it holds no connection of
     *                                  this context's {@code DataSource}s; also the gate's refusals (a read-only
     *                                  transaction)
     * @throws IllegalArgumentException if the resource is blank or too long, or the token not positive
     * @throws StaleTokenException      if a higher token is the resource's mark (the transaction is rollback-only)
     * @throws StoreException           if the database failed (the transaction is rollback-only)
     */
    void check(String resource, long token);
}
