package dev.leasehold.store.testing;

import dev.leasehold.store.StoreException;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * The lock waits a PostgreSQL claim meets although claimers skip each other's rows, told apart by the server's own
 * account of a lock timeout (the error's {@code Where} field, PostgreSQL's error context).
 *
 * <ul>
 *   <li><b>On the update chain of a row</b> ({@code Where}: {@code while locking updated version (b,o) of tuple in
 *       relation ...}). {@code FOR UPDATE SKIP LOCKED} skips a row whose locker is still running. But when that locker
 *       commits between PostgreSQL's look at the row and its try for the lock, PostgreSQL takes the lock and then
 *       follows the row's update chain to its newest version, and there it waits for whoever holds that version now,
 *       whatever the wait policy (heapam's {@code heap_lock_updated_tuple}). In a claim test that is mostly the
 *       claimer that just committed, now finishing the batch (or a claimer whose re-check refused that version and
 *       still holds its lock until it commits): a wait of one short transaction, never a queue.
 *   <li><b>With no error context</b> (no {@code Where}): a lock that is not a wait for a row's transaction. The one a
 *       claim meets is PostgreSQL's relation extension lock, taken by one session at a time to add a page to a table or
 *       index when an update finds no room; {@code lock_timeout} covers it as it covers every heavyweight lock. Seen
 *       in CI as a claim's 1 ms timeout with no {@code Where}; reproduced here under CPU load, the server logging the
 *       timeout with no {@code CONTEXT} while the table grew from 19 to 44 pages in that second. Table locks (DDL, a
 *       vacuum truncating the table) read the same and are allowed too.
 * </ul>
 *
 * A wait on a row another claimer holds reads {@code while locking tuple ...}: that fails the test. Of several
 * sessions queued on one row, only the first reports the row (it waits for the holder's transaction); the others wait
 * in the row's queue with no {@code Where}. So a claim that waited on rows is caught by the first waiter of each row,
 * which is very likely but not certain within one run; {@code aClaimerSkipsALockedBatchInsteadOfWaiting} checks the
 * skip itself, with no timing.
 */
public final class PostgresLockWaits implements ClaimWaits {

    /** How PostgreSQL's {@code Where} of a wait on a row's update chain begins (lmgr.c, {@code XLTW_LockUpdated}). */
    static final String UPDATE_CHAIN = "while locking updated version (";

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
        return where == null || where.startsWith(UPDATE_CHAIN);
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
