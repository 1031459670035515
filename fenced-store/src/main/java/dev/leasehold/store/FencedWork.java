package dev.leasehold.store;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A write run by {@link FenceGate} inside the transaction that checked the token. Implementations are called on the
 * caller's thread, once per call; they need not be thread-safe unless shared between calls running at once.
 */
@FunctionalInterface
public interface FencedWork {

    /**
     * Writes on {@code tx}, the gate's transaction at READ COMMITTED. {@code commit}, {@code rollback()},
     * {@code setAutoCommit}, {@code close}, {@code abort}, {@code setTransactionIsolation} and {@code setReadOnly}
     * throw an {@link SQLException} naming the method (the gate ends the transaction; savepoints are fine); if you
     * catch that and go on, the gate still rolls everything back and throws {@link StoreException}. Throwing
     * anything, checked or not, rolls everything back; the gate rethrows it unchanged (an SQLException as a
     * StoreException). Do not keep {@code tx} after returning: every call on it is refused then.
     *
     * <p>IMPORTANT: while the work runs no statement (a remote call, a wait), the transaction sits idle on the server
     * and holds the mark's lock; past {@link StoreConfig#idleInTransactionTimeout()} (PostgreSQL, MariaDB) the database ends
     * it, and the gate throws a retryable {@link StoreException}: nothing of the work is kept.
     *
     * @param tx the gate's transaction
     * @throws SQLException any failure of the work: everything is rolled back
     */
    void run(Connection tx) throws SQLException;
}
