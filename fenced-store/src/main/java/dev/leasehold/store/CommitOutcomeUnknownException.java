package dev.leasehold.store;

import java.sql.SQLException;

/**
 * The database failed while committing: the transaction may or may not have been committed, and the store cannot
 * tell. Not {@link #retryable()}: find out what was kept (read it back, or make the work idempotent) before writing
 * again. A fence mark that was advanced only moves up, so a lost {@code advance} can simply be repeated.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public class CommitOutcomeUnknownException extends StoreException {

    private static final long serialVersionUID = 1L;

    /**
     * @param operation what the store was doing, e.g. {@code "advancing the fence of 'billing'"}
     * @param cause     the failure of the commit
     */
    public CommitOutcomeUnknownException(String operation, SQLException cause) {
        super(
                operation + ": the commit failed, so the outcome is unknown (the transaction may or may not have been"
                        + " committed): " + cause.getMessage() + " (SQLState " + cause.getSQLState() + ")",
                cause,
                false);
    }
}
