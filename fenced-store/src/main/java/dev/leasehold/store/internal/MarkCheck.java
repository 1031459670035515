package dev.leasehold.store.internal;

import dev.leasehold.store.StaleTokenException;
import dev.leasehold.store.StoreException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The gate's token check on a transaction's connection, the same for the gate's own transactions and for a caller's
 * ({@code FenceGate.check}): the queue lock where the dialect has one ({@link SqlDialect#markQueue}), then the mark,
 * locked until the transaction ends, shared for a token the gate saw pass and commit, exclusive otherwise; a history
 * row if the token raised the mark. What it does is the protocol written in {@code FenceGate}'s Javadoc. Thread-safe:
 * all state is per call, except the memory of passed tokens ({@link PassedTokens}, itself thread-safe).
 */
public final class MarkCheck {

    /** Times the check looks again when the mark it failed on turns out not to be higher (a concurrent re-base). */
    private static final int CHECKS = 3;

    private final StoreContext context;
    private final int historyLimit;
    /** Per resource, the token this gate last saw pass and commit: a hint for the short path, bounded. */
    private final PassedTokens passed = new PassedTokens();
    /** The short check where the database has no shared row lock (H2); built on first use. */
    private volatile EqualCheck equalCheck;

    public MarkCheck(StoreContext context, int historyLimit) {
        this.context = context;
        this.historyLimit = historyLimit;
    }

    /** The memory of tokens seen to pass and commit. */
    public PassedTokens passed() {
        return passed;
    }

    /**
     * The check, and a history row if the token raised the mark. A token this gate saw pass and commit before costs
     * one round trip, which passes only if the mark still EQUALS it (so it cannot raise the mark unseen: after another
     * gate's re-base to a lower mark it fails, and the full path records the raise); if the mark is higher, it is
     * refused there. A new token costs the exclusive queue lock and a locking read of the mark first, then the raise,
     * and an insert if the mark rose.
     *
     * @return the mark before the check (empty: none), or null if the shared check passed (the mark is the token)
     */
    public OptionalLong pass(Connection tx, String resource, long token, String holder) throws SQLException {
        SqlDialect sql = context.sql();
        if (passed.seen(resource, token)) {
            Optional<String> share = sql.shareMark();
            if (share.isEmpty()) {
                if (equalCheck().pass(tx, resource, token)) {
                    return null; // H2: no shared row lock; the exclusive check, passing only if the mark equals the
                    // token
                }
            } else if (!sharedCheck(tx, sql, share.get(), resource, token).isEmpty()) {
                return null; // the mark is the token, share-locked until commit: other writers of it go on in parallel
            }
            // the mark is no longer the token; whatever queue lock is held is shared: a raise has come (read without
            // asking for the exclusive lock, which behind a waiting raise would only deadlock), or a re-base
            passed.forget(resource);
            OptionalLong mark = mark(tx, resource);
            if (mark.isPresent() && mark.getAsLong() > token) {
                throw new StaleTokenException(resource, token, mark.getAsLong());
            }
        }
        OptionalLong before = FenceHistory.lockMark(tx, sql, resource);
        raiseOrRefuse(tx, resource, token);
        if (before.isEmpty() || before.getAsLong() < token) {
            FenceHistory.raised(tx, sql, resource, token, before, holder, historyLimit);
        }
        return before;
    }

    /** The shared check, behind the queue's shared lock where the dialect has one (one round trip either way). */
    private static List<Integer> sharedCheck(Connection tx, SqlDialect sql, String share, String resource, long token)
            throws SQLException {
        Optional<String> queue = sql.markQueue(false);
        return queue.isEmpty()
                ? Jdbc.query(tx, share, row -> 1, resource, token)
                : Jdbc.queryLast(tx, queue.get() + "; " + share, row -> 1, resource, resource, token);
    }

    /** The short check, built once the dialect is known (racing threads build equal ones). */
    private EqualCheck equalCheck() {
        EqualCheck check = equalCheck;
        if (check == null) {
            check = new EqualCheck(context.sql());
            equalCheck = check;
        }
        return check;
    }

    /** The exclusive check: returns if the token passes (the mark now equals it and is locked), throws if stale. */
    private void raiseOrRefuse(Connection tx, String resource, long token) throws SQLException {
        Optional<String> upsert = context.tx().fenceUpsert(context.sql().tables);
        for (int check = 1; check <= CHECKS; check++) {
            boolean raised = upsert.isPresent()
                    ? Jdbc.oneRow(Jdbc.update(tx, upsert.get(), resource, token), "fence upsert")
                    // first use, or another writer created the row first and ours is still current
                    : raise(tx, resource, token) || insertMark(tx, resource, token) || raise(tx, resource, token);
            if (raised) {
                return;
            }
            OptionalLong highest = mark(tx, resource);
            if (highest.isPresent() && highest.getAsLong() > token) {
                throw new StaleTokenException(resource, token, highest.getAsLong());
            }
        }
        throw new StoreException(
                "the fence of '" + resource + "' refused token " + token + " but no higher mark"
                        + " could be read (was it re-based meanwhile?); nothing was written",
                null,
                true);
    }

    private boolean raise(Connection tx, String resource, long token) throws SQLException {
        SqlDialect sql = context.sql();
        return Jdbc.oneRow(
                Jdbc.update(
                        tx,
                        "UPDATE " + sql.tables.fence() + " SET token = ?, updated_at = " + sql.now()
                                + " WHERE resource = ? AND token <= ?",
                        token,
                        resource,
                        token),
                "fence update");
    }

    /** Inserts the resource's mark if it has none: true if inserted, false if a row was already there. */
    public boolean insertMark(Connection tx, String resource, long token) throws SQLException {
        SqlDialect sql = context.sql();
        try {
            return Jdbc.oneRow(
                    Jdbc.update(
                            tx,
                            sql.insertIfAbsent(
                                    "INSERT INTO " + sql.tables.fence()
                                            + " (resource, token, updated_at) VALUES (?, ?, " + sql.now() + ")",
                                    "resource"),
                            resource,
                            token),
                    "fence insert");
        } catch (SQLException e) {
            if (sql.lostInsertRace(e)) {
                return false;
            }
            throw e;
        }
    }

    /** The resource's mark as a plain read (no lock), or empty if it has none. */
    public OptionalLong mark(Connection connection, String resource) throws SQLException {
        List<Long> tokens = Jdbc.query(
                connection,
                "SELECT token FROM " + context.sql().tables.fence() + " WHERE resource = ?",
                row -> row.getLong(1),
                resource);
        return tokens.isEmpty() ? OptionalLong.empty() : OptionalLong.of(tokens.get(0));
    }
}
