package dev.leasehold.store;

import dev.leasehold.store.internal.SqlStates;
import java.sql.SQLException;

/**
 * The database failed (or the work run inside a fenced transaction failed with an {@link SQLException}). The
 * message names the operation and says what happened; the {@link SQLException}, if any, is the cause. Nothing of the
 * operation was kept: the transaction was rolled back (except {@link CommitOutcomeUnknownException}, whose commit
 * failed, or whose statement that commits on its own lost its answer, and whose outcome is therefore unknown).
 *
 * <p>{@link #retryable()} says whether making the same call again may succeed: true for serialization failures,
 * deadlocks, lock timeouts ({@link StoreConfig#lockTimeout()}), transactions the database ended because they sat idle
 * too long ({@link StoreConfig#idleInTransactionTimeout()}) and lost connections (a connection lost after a
 * statement that commits on its own was sent is a {@link CommitOutcomeUnknownException} instead, never retryable).
 * The store already retried serialization failures and deadlocks of its own statements a few times before giving
 * up (5 attempts in all), and so too, in its claims on PostgreSQL ({@code BatchClaims.claimNext} and
 * {@code claimUpTo}, {@code SlotRuns.sweep}, {@code OutboxRelay.claimNext}), a lock timeout that SKIP LOCKED cannot
 * avoid (on a row's update chain, or on no row at all); such a failure says "(tried 5 times)".
 *
 * <p>Thread-safety: immutable once thrown, like any exception that nobody calls {@code addSuppressed} on.
 */
public class StoreException extends FencingException {

    private static final long serialVersionUID = 1L;

    /** Whether the same call may succeed if made again. */
    private final boolean retryable;

    /**
     * "{@code operation} failed: ..." with what the SQLState means; retryable as the SQLState says.
     *
     * @param operation what the store was doing, e.g. {@code "claiming a batch for 'worker-1'"}
     * @param cause     the database's failure
     */
    public StoreException(String operation, SQLException cause) {
        this(
                operation + " failed: " + meaning(SqlStates.of(cause)) + cause.getMessage() + " (SQLState "
                        + cause.getSQLState() + ")",
                cause,
                SqlStates.of(cause).retryable());
    }

    /**
     * A failure that is not the database's (not retryable).
     *
     * @param message what went wrong
     */
    public StoreException(String message) {
        super(message);
        this.retryable = false;
    }

    /**
     * @param message   what went wrong
     * @param cause     why
     * @param retryable whether the same call may succeed if made again
     */
    public StoreException(String message, Throwable cause, boolean retryable) {
        super(message, cause);
        this.retryable = retryable;
    }

    /** @return whether the same call may succeed if made again (nothing of this one was kept) */
    public boolean retryable() {
        return retryable;
    }

    /** @return the SQLException behind this failure, or null */
    public SQLException sqlException() {
        return getCause() instanceof SQLException e ? e : null;
    }

    private static String meaning(SqlStates.Kind kind) {
        return switch (kind) {
            case SERIALIZATION -> "a serialization failure (retryable; the store already retried it): ";
            case DEADLOCK -> "a deadlock (retryable; the store already retried it): ";
            case LOCK_TIMEOUT -> "a lock timeout: a lock wait lasted longer than the store's lock timeout"
                    + " (StoreConfig.withLockTimeout), because another transaction holds what it waited for (a row"
                    + " a paused leader holds inside its transaction?); nothing was written (retryable): ";
            case CONNECTION_LOST -> "the connection to the database was lost (retryable): ";
            case IDLE_TIMEOUT -> SqlStates.IDLE_ENDED + " (retryable): ";
            case OTHER -> "";
        };
    }
}
