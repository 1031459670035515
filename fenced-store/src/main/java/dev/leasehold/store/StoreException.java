package dev.leasehold.store;

import java.sql.SQLException;

/**
 * The database failed (or the work run inside a fenced transaction failed with an {@link SQLException}). The
 * message names the operation; the {@link SQLException} is the cause. The transaction was rolled back.
 */
public class StoreException extends FencingException {

    private static final long serialVersionUID = 1L;

    public StoreException(String operation, SQLException cause) {
        super(operation + " failed: " + cause.getMessage() + " (SQLState " + cause.getSQLState() + ")", cause);
    }

    public StoreException(String message) {
        super(message);
    }

    /** The SQLException behind this failure, or null. */
    public SQLException sqlException() {
        return getCause() instanceof SQLException e ? e : null;
    }
}
