package dev.leasehold.store.internal.postgres;

import java.sql.SQLException;

/**
 * The lock waits a PostgreSQL claim meets although it locks with {@code FOR UPDATE SKIP LOCKED}, told apart from a
 * wait on a row another transaction holds by the server's own account of the lock timeout (SQLState 55P03): the
 * error's context ({@code Where}, which PgJDBC puts in the message), read from the message so that the store needs
 * nothing of the driver's API. Stateless and thread-safe.
 *
 * <ul>
 *   <li><b>On the update chain of a row</b> ({@code Where: while locking updated version (b,o) of tuple in relation
 *       ...}). {@code SKIP LOCKED} skips a row whose locker is still running. But when that locker commits between
 *       PostgreSQL's look at the row and its try for the lock, PostgreSQL takes the lock and then follows the row's
 *       update chain to its newest version, and there it waits for whoever holds that version now, whatever the wait
 *       policy (heapam's {@code heap_lock_tuple}: the skip is a conditional wait on the updater, which has just ended,
 *       then {@code heap_lock_updated_tuple} waits unconditionally). Among claims that is the claimer that just
 *       committed, now finishing or renewing the batch: a wait of one short transaction. The window is the few
 *       instructions between the two looks; a claim made again sees the newest version at once, locked, and skips it.
 *   <li><b>With no row in its context</b>: a heavyweight lock that is not a wait for a row's transaction. The one a
 *       claim meets is the relation extension lock, taken by one session at a time to add a page to a table or index
 *       when an update finds no room; {@code lock_timeout} covers it as it covers every heavyweight lock, so a short
 *       lock timeout can end on it under load (seen in CI with 1 ms). A lock on the whole table (DDL, a vacuum
 *       truncating the table) reads the same.
 * </ul>
 *
 * A wait on a row another transaction holds ({@code while locking tuple (b,o) in relation ...}, and every other
 * context PostgreSQL gives a row's wait, all of which name a "tuple") is not one of these: under SKIP LOCKED it
 * cannot happen, and if it does, it is a defect the caller must see. A server that speaks another language than
 * English gives these contexts in its own words: then every lock timeout of a claim reads as one of these waits and is
 * retried, still a bounded number of times.
 */
final class PostgresSkipLockedWaits {

    /** How PostgreSQL's context of a wait on a row's update chain begins (lmgr.c, {@code XLTW_LockUpdated}). */
    static final String UPDATE_CHAIN = "while locking updated version (";

    /** What every context of a wait on a row names (lmgr.c, {@code XactLockTableWaitErrorCb}). */
    private static final String A_ROW = "tuple";

    private PostgresSkipLockedWaits() {}

    /** Whether {@code e} is a lock timeout on a row's update chain, or on no row at all. */
    static boolean onNoClaimersRow(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql && "55P03".equals(sql.getSQLState())) {
                String message = sql.getMessage() == null ? "" : sql.getMessage();
                return message.contains(UPDATE_CHAIN) || !message.contains(A_ROW);
            }
        }
        return false;
    }
}
