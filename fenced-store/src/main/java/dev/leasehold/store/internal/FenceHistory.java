package dev.leasehold.store.internal;

import dev.leasehold.store.MarkChange;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The fence's history table: a row for every token that became a resource's mark ({@code raised}, written in the
 * transaction that raised it, the resource's oldest trimmed beyond a limit) and for every re-base ({@code rebased},
 * written beside its audit row, never trimmed). One table, so one sequence orders them. Stateless, thread-safe.
 */
public final class FenceHistory {

    private static final String RAISED = "raised";
    private static final String REBASED = "rebased";

    private FenceHistory() {}

    /**
     * The resource's mark, locked until the transaction ends (nothing is locked if it has none yet), behind the
     * queue's exclusive lock where the dialect has one ({@link SqlDialect#markQueue}, sent in the same round trip):
     * the first step of a raise, a first use or a re-base.
     */
    public static OptionalLong lockMark(Connection tx, SqlDialect sql, String resource) throws SQLException {
        String select = "SELECT token FROM " + sql.tables.fence() + " WHERE resource = ? FOR UPDATE";
        Optional<String> queue = sql.markQueue(true);
        List<Long> tokens = queue.isEmpty()
                ? Jdbc.query(tx, select, row -> row.getLong(1), resource)
                : Jdbc.queryLast(tx, queue.get() + "; " + select, row -> row.getLong(1), resource, resource);
        return tokens.isEmpty() ? OptionalLong.empty() : OptionalLong.of(tokens.get(0));
    }

    /** Records that {@code token} became the mark after {@code previous}, then trims the resource's oldest raises. */
    public static void raised(
            Connection tx, SqlDialect sql, String resource, long token, OptionalLong previous, String holder, int limit)
            throws SQLException {
        insert(tx, sql, resource, token, previous, holder, RAISED, null);
        // Two statements, so that every database can run them (MariaDB refuses a sub-select on the table a DELETE
        // deletes from, MySQL has no OFFSET ... FETCH): the id of the newest raise beyond the limit, then the delete.
        // A raise is rare (a new leader), so reading up to limit + 1 ids is cheap.
        String table = sql.tables.fenceHistory();
        List<Long> newest = Jdbc.query(
                tx,
                "SELECT id FROM " + table + " WHERE resource = ? AND kind = '" + RAISED + "' ORDER BY id DESC "
                        + sql.firstRows(limit + 1),
                row -> row.getLong(1),
                resource);
        if (newest.size() > limit) {
            Jdbc.update(
                    tx,
                    "DELETE FROM " + table + " WHERE resource = ? AND kind = '" + RAISED + "' AND id <= ?",
                    resource,
                    newest.get(limit));
        }
    }

    /** Records a re-base (its audit row is written beside it). */
    public static void rebased(
            Connection tx,
            SqlDialect sql,
            String resource,
            long token,
            OptionalLong previous,
            String operator,
            String reason)
            throws SQLException {
        insert(tx, sql, resource, token, previous, operator, REBASED, reason);
    }

    private static void insert(
            Connection tx,
            SqlDialect sql,
            String resource,
            long token,
            OptionalLong previous,
            String holder,
            String kind,
            String reason)
            throws SQLException {
        Jdbc.update(
                tx,
                "INSERT INTO " + sql.tables.fenceHistory() + " (resource, token, previous_token, holder, kind,"
                        + " reason, marked_at) VALUES (?, ?, ?, ?, ?, ?, " + sql.now() + ")",
                resource,
                token,
                previous.isPresent() ? previous.getAsLong() : null,
                holder,
                kind,
                reason);
    }

    /** The newest {@code limit} changes of the resource's mark, raises and re-bases together, newest first. */
    public static List<MarkChange> read(Connection connection, SqlDialect sql, String resource, int limit)
            throws SQLException {
        return Jdbc.query(
                connection,
                "SELECT kind, token, previous_token, holder, reason, marked_at FROM " + sql.tables.fenceHistory()
                        + " WHERE resource = ? ORDER BY id DESC " + sql.firstRows(limit),
                row -> {
                    long previous = row.getLong("previous_token");
                    OptionalLong before = row.wasNull() ? OptionalLong.empty() : OptionalLong.of(previous);
                    return new MarkChange(
                            resource,
                            MarkChange.Kind.valueOf(row.getString("kind").toUpperCase(Locale.ROOT)),
                            row.getLong("token"),
                            before,
                            Optional.ofNullable(row.getString("holder")),
                            Optional.ofNullable(row.getString("reason")),
                            Jdbc.instant(row, "marked_at"));
                },
                resource);
    }
}
