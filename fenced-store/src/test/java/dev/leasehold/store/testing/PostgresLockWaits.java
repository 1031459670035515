package dev.leasehold.store.testing;

import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * Which row a PostgreSQL lock wait was on, by the server's own account (the error's {@code Where} field).
 *
 * <p>{@code FOR UPDATE SKIP LOCKED} skips a row whose locker is still running. But when that locker commits between
 * PostgreSQL's look at the row and its try for the lock, PostgreSQL takes the lock and then follows the row's update
 * chain to its newest version, and there it waits for whoever updates that version now, whatever the wait policy
 * (heapam's {@code heap_lock_updated_tuple}; the wait is reported as {@code while locking updated version of tuple}).
 * In a claim test that is the claimer that just committed, now finishing the batch: a claimer can wait for one
 * finish, and never for a claim (a wait on a locked row itself reads {@code while locking tuple}).
 */
public final class PostgresLockWaits {

    private PostgresLockWaits() {}

    /** The server's {@code Where} of the lock timeout in {@code failure} or its causes, or "" (for a test's message). */
    public static String where(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof PSQLException e && "55P03".equals(e.getSQLState())) {
                ServerErrorMessage server = e.getServerErrorMessage();
                return server == null || server.getWhere() == null ? "" : "where: " + server.getWhere();
            }
        }
        return "";
    }

    /** Whether {@code failure}, or a cause of it, is a lock timeout on a newer version of a row just claimed. */
    public static boolean onTheUpdateChain(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof PSQLException e && "55P03".equals(e.getSQLState())) {
                ServerErrorMessage server = e.getServerErrorMessage();
                String where = server == null ? null : server.getWhere();
                return where != null && where.startsWith("while locking updated version of tuple");
            }
        }
        return false;
    }
}
