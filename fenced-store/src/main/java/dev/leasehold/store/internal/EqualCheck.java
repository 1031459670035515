package dev.leasehold.store.internal;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The gate's short check where the database has no shared row lock (H2): an UPDATE of the resource's mark row that
 * matches only if the mark EQUALS the token, and so locks it exclusively until commit. Its SQL is built once per gate,
 * not per write (issue 24). Immutable and thread-safe.
 *
 * <p>Not done, on purpose: taking the transaction's mark in the same statement ({@code SELECT TRANSACTION_ID() FROM
 * FINAL TABLE (UPDATE ...)}), which saves a statement at one thread, makes writers of one resource on H2 2.4 wait far
 * longer for one another (see docs/performance.md).
 */
public final class EqualCheck {

    private final String update;

    public EqualCheck(SqlDialect sql) {
        this.update =
                "UPDATE " + sql.tables.fence() + " SET updated_at = " + sql.now() + " WHERE resource = ? AND token = ?";
    }

    /** Runs the check in {@code tx}: true if the mark is {@code token} (now locked), false if not (nothing locked). */
    public boolean pass(Connection tx, String resource, long token) throws SQLException {
        return Jdbc.oneRow(Jdbc.update(tx, update, resource, token), "fence check");
    }
}
