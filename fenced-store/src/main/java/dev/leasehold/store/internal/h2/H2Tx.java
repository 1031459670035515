package dev.leasehold.store.internal.h2;

import dev.leasehold.store.internal.TxDialect;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * H2's transaction framing: it has no per-transaction form of the isolation or the lock timeout, so the connection's
 * isolation (the driver knows it: no SQL) and the session's {@code LOCK_TIMEOUT} (milliseconds) are set before the
 * transaction and restored after it, only where they differ. Reading {@code LOCK_TIMEOUT()} is a statement as dear as
 * the gate's check (issue 24), so a session found already right (the URL's {@code LOCK_TIMEOUT} equal to the store's:
 * what the pool lends is then what the store needs) is remembered by the identity of its physical connection
 * ({@code unwrap(Connection.class)}, weakly held) and not read again: the store never changes such a session, so it
 * goes back to the pool as it came. A session with another timeout is read, set and restored every time. (Code of
 * yours that runs {@code SET LOCK_TIMEOUT} on a pooled session the store has seen right is not noticed: set the
 * timeout in the URL.) Thread-safe.
 */
final class H2Tx extends TxDialect {

    /** H2 sessions (physical connections) whose LOCK_TIMEOUT was read equal to the store's. */
    private final Map<Connection, Boolean> right = Collections.synchronizedMap(new WeakHashMap<>());

    H2Tx(long lockTimeoutMillis) {
        super(lockTimeoutMillis);
    }

    @Override
    public Restore enter(Connection connection) throws SQLException {
        long wanted = lockTimeoutMillis();
        int isolation = connection.getTransactionIsolation();
        if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
            connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
        Connection session = physical(connection);
        long lent = wanted;
        if (session == null || !right.containsKey(session)) {
            try (Statement statement = connection.createStatement();
                    ResultSet row = statement.executeQuery("SELECT LOCK_TIMEOUT()")) {
                row.next();
                lent = row.getLong(1);
                if (lent != wanted) {
                    statement.execute("SET LOCK_TIMEOUT " + wanted);
                } else if (session != null) {
                    right.put(session, Boolean.TRUE);
                }
            }
        }
        long timeout = lent;
        if (isolation == Connection.TRANSACTION_READ_COMMITTED && timeout == wanted) {
            return NOTHING;
        }
        return () -> {
            if (timeout != wanted) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("SET LOCK_TIMEOUT " + timeout);
                }
            }
            if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                connection.setTransactionIsolation(isolation);
            }
        };
    }

    /**
     * The session's {@code LOCK_TIMEOUT} (which neither commits nor is rolled back), read, set to the store's where
     * it differs, and put back; the isolation is left as the caller's transaction has it.
     */
    @Override
    public Restore lockTimeoutInCallersTransaction(Connection tx) throws SQLException {
        long wanted = lockTimeoutMillis();
        long lent;
        try (Statement statement = tx.createStatement();
                ResultSet row = statement.executeQuery("SELECT LOCK_TIMEOUT()")) {
            row.next();
            lent = row.getLong(1);
            if (lent == wanted) {
                return NOTHING;
            }
            statement.execute("SET LOCK_TIMEOUT " + wanted);
        }
        return () -> {
            try (Statement statement = tx.createStatement()) {
                statement.execute("SET LOCK_TIMEOUT " + lent);
            }
        };
    }

    /** The physical connection behind a pool's proxy, or null if the proxy does not say. */
    private static Connection physical(Connection connection) {
        try {
            return connection.unwrap(Connection.class);
        } catch (SQLException | RuntimeException e) {
            return null;
        }
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
