package dev.leasehold.store.testing;

import dev.leasehold.store.StoreException;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * The lock waits a PostgreSQL claim meets although claimers skip each other's rows, told apart by the server's own
 * account of a lock timeout (the error's {@code Where} field).
 *
 * <ul>
 *   <li><b>On the update chain of a row just claimed</b> ({@code Where}: {@code while locking updated version of
 *       tuple}). {@code FOR UPDATE SKIP LOCKED} skips a row whose locker is still running. But when that locker commits
 *       between PostgreSQL's look at the row and its try for the lock, PostgreSQL takes the lock and then follows the
 *       row's update chain to its newest version, and there it waits for whoever updates that version now, whatever
 *       the wait policy (heapam's {@code heap_lock_updated_tuple}). In a claim test that is the claimer that just
 *       committed, now finishing the batch.
 *   <li><b>On no row at all</b> (no {@code Where}): a lock on a whole table or index, which PostgreSQL takes to extend
 *       it by a page when an update finds no room, and which {@code lock_timeout} covers as it covers any lock. Seen in
 *       CI as a claim's 1 ms timeout with no {@code Where}, with the table growing by 25 pages in that second and no
 *       vacuum holding it.
 * </ul>
 *
 * A wait on a row another claimer holds reads {@code while locking tuple ...}: that fails the test. (Of several
 * sessions queued on one row, only the first reports the row; the others wait on the row's queue with no {@code
 * Where}. A claim that waited on rows would still show the first.)
 */
public final class PostgresLockWaits implements ClaimWaits {

    /** The only instance. */
    public static final PostgresLockWaits CLAIMS = new PostgresLockWaits();

    private PostgresLockWaits() {}

    @Override
    public boolean onNoClaimersRow(StoreException failure) {
        PSQLException timeout = lockTimeout(failure);
        if (timeout == null) {
            return false;
        }
        String where = whereOf(timeout);
        return where == null || where.startsWith("while locking updated version of tuple");
    }

    @Override
    public String where(StoreException failure) {
        PSQLException timeout = lockTimeout(failure);
        String where = timeout == null ? null : whereOf(timeout);
        return where == null ? "" : "where: " + where;
    }

    private static PSQLException lockTimeout(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof PSQLException e && "55P03".equals(e.getSQLState())) {
                return e;
            }
        }
        return null;
    }

    private static String whereOf(PSQLException timeout) {
        ServerErrorMessage server = timeout.getServerErrorMessage();
        return server == null ? null : server.getWhere();
    }
}
