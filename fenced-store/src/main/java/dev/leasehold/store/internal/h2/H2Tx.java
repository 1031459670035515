package dev.leasehold.store.internal.h2;

import dev.leasehold.store.internal.TxDialect;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * H2's transaction framing: it has no per-transaction form of the isolation or the lock timeout, so the connection's
 * isolation and the session's {@code LOCK_TIMEOUT} (milliseconds) are set before the transaction and restored after
 * it, only where they differ. Immutable and thread-safe.
 */
final class H2Tx extends TxDialect {

    H2Tx(long lockTimeoutMillis) {
        super(lockTimeoutMillis);
    }

    @Override
    public Restore enter(Connection connection) throws SQLException {
        return enterSession(connection, "LOCK_TIMEOUT()", "SET LOCK_TIMEOUT ", lockTimeoutMillis());
    }

    /** The transaction's id: a different one before the commit means the work's SQL ended the gate's. */
    @Override
    public String markTransaction() {
        return "SELECT TRANSACTION_ID()";
    }

    @Override
    public String verifyTransaction() {
        return markTransaction();
    }
}
