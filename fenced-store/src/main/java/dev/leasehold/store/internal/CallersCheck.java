package dev.leasehold.store.internal;

import dev.leasehold.store.StaleTokenException;
import dev.leasehold.store.StoreException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.OptionalLong;

/**
 * {@code FenceGate.check}: the gate's check ({@link MarkCheck}) on a transaction the CALLER owns. It refuses a
 * connection it cannot fence before sending anything, sets the store's lock timeout for its own statements only and
 * puts the caller's back ({@link TxDialect#lockTimeoutInCallersTransaction}), and never commits, rolls back, closes or
 * reconfigures the connection: the locks it takes end with the caller's transaction.
 *
 * <p>What the gate learns: a token is remembered as passed ({@link PassedTokens}, which decides only which check is
 * tried first) only if the mark it read under the exclusive lock already WAS the token, i.e. committed by someone.
 * A token that raised the mark inside the caller's transaction is not learned: that transaction may still roll back,
 * and a remembered token higher than the committed mark would send every later write of the real mark down the
 * exclusive path for good. So the first check of a new leader's token takes the exclusive path, and so does the next
 * one if the first has not committed yet; from then on the shared path. Stateless and thread-safe.
 */
public final class CallersCheck {

    /** SQLState of a statement refused because the transaction is read-only (PostgreSQL, MariaDB, MySQL). */
    private static final String READ_ONLY = "25006";

    private CallersCheck() {}

    /**
     * Throws {@link IllegalStateException}, naming the fix, unless {@code tx} is an open connection in a transaction
     * (auto-commit off) that is not read-only; sends nothing.
     */
    public static void refuseUnusable(Connection tx) {
        if (tx == null) {
            throw new IllegalStateException("FenceGate.check needs the connection your transaction runs on, was null:"
                    + " pass the Connection you will write and commit on (with Spring, inside @Transactional:"
                    + " DataSourceUtils.getConnection(dataSource))");
        }
        boolean closed;
        boolean autoCommit;
        boolean readOnly;
        try {
            closed = tx.isClosed();
            autoCommit = !closed && tx.getAutoCommit();
            readOnly = !closed && tx.isReadOnly();
        } catch (SQLException e) {
            throw new StoreException("FenceGate.check could not ask the connection whether it is usable", e);
        }
        if (closed) {
            throw new IllegalStateException("FenceGate.check was given a closed connection: pass the open connection"
                    + " your transaction runs on, before you commit it");
        }
        if (autoCommit) {
            throw new IllegalStateException("FenceGate.check was given a connection in auto-commit mode: each"
                    + " statement would commit on its own and the check's lock would end before your writes, so"
                    + " nothing would be fenced. Call setAutoCommit(false) first (with Spring: run it inside"
                    + " @Transactional), check, write, then commit; or use FenceGate.write, which owns its"
                    + " transaction");
        }
        if (readOnly) {
            throw readOnly(null);
        }
    }

    /**
     * The check in {@code tx}: returns if {@code token} passes (the mark is locked until the caller's transaction
     * ends), throws {@link StaleTokenException} if a higher token is the mark, a {@link StoreException} if the
     * database failed (then the caller must roll back).
     */
    public static void check(StoreContext context, MarkCheck marks, Connection tx, String resource, long token) {
        String operation = "checking the fence of '" + resource + "' with token " + token + " in your transaction";
        TxDialect settings = null;
        TxDialect.Restore restore = null;
        boolean restored = false;
        try {
            context.sqlOn(tx); // the dialect, detected from this connection's metadata if no other told it yet
            settings = context.tx();
            restore = settings.lockTimeoutInCallersTransaction(tx);
            OptionalLong before;
            try {
                before = marks.pass(tx, resource, token, null);
            } catch (StaleTokenException e) {
                restored = true;
                restore.run(); // the transaction is still usable: the caller rolls it back
                throw e;
            }
            restored = true;
            restore.run();
            if (before != null && before.isPresent() && before.getAsLong() == token) {
                marks.passed().passed(resource, token); // the mark was already this token, committed: safe to learn
            }
        } catch (SQLException e) {
            if (restore != null && !restored && settings.abortedProbe().isEmpty()) {
                try {
                    restore.run(); // where a failure leaves the transaction usable, put the caller's timeout back
                } catch (SQLException notRestored) {
                    e.addSuppressed(notRestored);
                }
            }
            if (READ_ONLY.equals(e.getSQLState()) || e.getErrorCode() == 1792) {
                throw readOnly(e);
            }
            SqlStates.Kind kind = SqlStates.of(e);
            throw new StoreException(
                    operation + " failed: " + e.getMessage() + " (SQLState " + e.getSQLState() + "); roll your"
                            + " transaction back"
                            + (kind.retryable()
                                    ? " and run it again (retryable: a serialization failure, deadlock, lock timeout"
                                            + " or lost connection; nothing of it may be committed)"
                                    : ""),
                    e,
                    kind.retryable());
        }
    }

    private static IllegalStateException readOnly(SQLException cause) {
        return new IllegalStateException(
                "FenceGate.check was given a read-only transaction"
                        + (cause == null ? "" : " (the database refused the check's lock: " + cause.getMessage() + ")")
                        + ": the check locks the resource's mark and may raise it, and a read-only transaction writes"
                        + " nothing that needs a fence. Check in the transaction that writes (with Spring: not"
                        + " @Transactional(readOnly = true))"
                        + (cause == null ? "" : "; roll this transaction back"),
                cause);
    }
}
