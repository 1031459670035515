package dev.leasehold.store.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The gate's short check where the database has no shared row lock (H2): an UPDATE of the resource's mark row that
 * matches only if the mark EQUALS the token, and so locks it exclusively until commit. Its SQL is built once per gate,
 * not per write. Where the database can ({@link TxDialect#markColumn()} and {@link SqlDialect#hasReturning()}), the
 * same statement also marks the transaction ({@link Jdbc.Marked}): the mark is read from the row the UPDATE changed,
 * in the transaction that now holds its lock, and costs no statement of its own inside that lock (issue 24). The
 * check's rows and locks are the same either way. Immutable and thread-safe.
 */
public final class EqualCheck {

    /** What {@link #pass} answers when the check passed and did not mark the transaction. */
    public static final Object PASSED = Boolean.TRUE;

    private final String update;
    /** The update inside a query that returns the mark of each row it changed, or null. */
    private final String marking;

    public EqualCheck(SqlDialect sql, TxDialect tx) {
        this.update =
                "UPDATE " + sql.tables.fence() + " SET updated_at = " + sql.now() + " WHERE resource = ? AND token = ?";
        this.marking = sql.hasReturning()
                ? tx.markColumn().map(column -> sql.returning(update, column)).orElse(null)
                : null;
    }

    /**
     * Runs the check in {@code tx}.
     *
     * @return null if the mark is not {@code token} (nothing changed, nothing locked); else a {@link Jdbc.Marked}
     *         holding the transaction's mark, or {@link #PASSED} where the statement cannot mark it
     */
    public Object pass(Connection tx, String resource, long token) throws SQLException {
        if (marking == null) {
            return Jdbc.oneRow(Jdbc.update(tx, update, resource, token), "fence check") ? PASSED : null;
        }
        List<Object> marks = Jdbc.query(tx, marking, row -> row.getObject(1), resource, token);
        if (marks.size() > 1) {
            throw new IllegalStateException("fence check changed " + marks.size() + " rows, expected 0 or 1: a bug");
        }
        if (marks.isEmpty()) {
            return null;
        }
        return marks.get(0) == null ? PASSED : new Jdbc.Marked(marks.get(0)); // null: the mark's own statement asks
    }
}
