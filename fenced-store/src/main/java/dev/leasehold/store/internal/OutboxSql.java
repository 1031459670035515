package dev.leasehold.store.internal;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * The outbox's statements: recording an intent (insert-if-absent on the key) and claiming the next due intent.
 * The SQL that differs per database comes from {@link SqlDialect}'s primitives ({@code now()}, insert-if-absent,
 * {@code returning}); the claim asks the dialect whether it can claim in one statement, as {@code BatchClaims} does.
 *
 * <p>The dialect is resolved from the connection in hand: {@code record} runs on the connection of a
 * {@code FenceGate} transaction, which another store object opened, and a second connection could exhaust a pool of
 * one. Thread-safe.
 */
public final class OutboxSql {

    public static final String PENDING = "pending";
    public static final String SENDING = "sending";
    public static final String DELIVERED = "delivered";
    public static final String DEAD = "dead";

    /** Candidates read unlocked (where a claim is not one statement), oldest first, in pages of this many. */
    private static final int PAGE = 16;

    private final StoreContext context;

    public OutboxSql(StoreContext context) {
        this.context = Args.notNull(context, "context");
    }

    /** The dialect, detected on {@code connection} (the connection in hand) if no connection told it yet. */
    public SqlDialect on(Connection connection) throws SQLException {
        return context.sqlOn(connection);
    }

    /**
     * Inserts the intent unless its key is there; a key already recorded with another destination or payload is
     * refused (a key must name exactly one piece of work).
     *
     * @return true if it was inserted, false if the same intent was recorded before
     */
    public boolean insert(
            Connection tx, String resource, long token, String key, String destination, String payload, boolean ordered)
            throws SQLException {
        SqlDialect sql = on(tx);
        boolean inserted;
        try {
            inserted = Jdbc.oneRow(
                    Jdbc.update(
                            tx,
                            sql.insertIfAbsent(
                                    "INSERT INTO " + sql.tables.outbox()
                                            + " (idem_key, destination, payload, in_order, resource, token, status, attempts, fence,"
                                            + " next_attempt_at, recorded_at) VALUES (?, ?, ?, ?, ?, ?, '" + PENDING
                                            + "', 0, 0, "
                                            + sql.now() + ", " + sql.now() + ")",
                                    "idem_key"),
                            key,
                            destination,
                            payload,
                            ordered ? 1L : 0L,
                            resource,
                            token),
                    "outbox insert");
        } catch (SQLException e) {
            if (!sql.lostInsertRace(e)) {
                throw e;
            }
            inserted = false;
        }
        if (inserted) {
            return true;
        }
        List<List<String>> existing = Jdbc.query(
                tx,
                "SELECT destination, payload FROM " + sql.tables.outbox() + " WHERE idem_key = ?",
                row -> List.of(row.getString(1), row.getString(2)),
                key);
        if (existing.isEmpty()) {
            throw new IllegalStateException("intent '" + key + "' was neither inserted nor found: a bug");
        }
        if (!existing.get(0).equals(List.of(destination, payload))) {
            throw new IllegalArgumentException("idempotency key '" + key + "' was already recorded for another"
                    + " destination or payload (recorded: '" + existing.get(0).get(0) + "'); a key must be derived"
                    + " from the business identity of exactly one piece of work; nothing was written");
        }
        return false;
    }

    /**
     * Claims the oldest due intent for {@code relay}: status sending, the lease from the database clock,
     * {@code fence + 1}, {@code attempts + 1}. One statement where the dialect can; elsewhere (H2) candidates are
     * read unlocked and locked one at a time with {@code SKIP LOCKED} (see {@code SqlDialect.H2#claimBatch} for
     * why), which needs {@code tx} to be a transaction.
     */
    public Optional<OutboxRow> claim(Connection tx, String relay, long leaseMillis) throws SQLException {
        SqlDialect sql = on(tx);
        String table = sql.tables.outbox();
        if (sql.claimsInOneStatement()) {
            return single(Jdbc.query(
                    tx,
                    claimUpdate(
                            sql,
                            "(SELECT o.idem_key FROM " + table + " o WHERE " + due(sql)
                                    + " ORDER BY o.seq FETCH FIRST 1 ROW ONLY FOR UPDATE SKIP LOCKED)"),
                    OutboxSql::claimRow,
                    relay,
                    leaseMillis));
        }
        long after = Long.MIN_VALUE;
        while (true) {
            List<Object[]> page = Jdbc.query(
                    tx,
                    "SELECT o.idem_key, o.seq FROM " + table + " o WHERE " + due(sql) + " AND o.seq > ? ORDER BY o.seq "
                            + sql.firstRows(PAGE),
                    row -> new Object[] {row.getString(1), row.getLong(2)},
                    after);
            for (Object[] candidate : page) {
                String key = (String) candidate[0];
                boolean locked = !Jdbc.query(
                                tx,
                                "SELECT idem_key FROM " + table + " WHERE idem_key = ? FOR UPDATE SKIP LOCKED",
                                row -> true,
                                key)
                        .isEmpty();
                if (!locked) {
                    continue;
                }
                boolean stillDue = !Jdbc.query(
                                tx,
                                "SELECT o.idem_key FROM " + table + " o WHERE o.idem_key = ? AND " + due(sql),
                                row -> true,
                                key)
                        .isEmpty();
                if (stillDue) {
                    return single(sql.updateByKey(
                            tx,
                            claimSet(sql) + " WHERE idem_key = ?",
                            table,
                            "idem_key",
                            key,
                            CLAIM_COLUMNS,
                            OutboxSql::claimRow,
                            relay,
                            leaseMillis));
                }
                tx.rollback(); // we locked an intent another relay just took: let go of it at once
            }
            if (page.size() < PAGE) {
                return Optional.empty();
            }
            after = (Long) page.get(page.size() - 1)[1];
        }
    }

    /**
     * Due: pending and past its backoff, or sending with an expired lease; an ordered intent also waits for every
     * older ordered intent of its destination to be delivered or dead.
     */
    private static String due(SqlDialect sql) {
        return "((o.status = '" + PENDING + "' AND o.next_attempt_at <= " + sql.now() + ") OR (o.status = '"
                + SENDING + "' AND o.lease_until < " + sql.now() + ")) AND (o.in_order = 0 OR NOT EXISTS (SELECT 1"
                + " FROM " + sql.tables.outbox() + " p WHERE p.destination = o.destination AND p.in_order = 1"
                + " AND p.seq < o.seq AND p.status IN ('" + PENDING + "', '" + SENDING + "')))";
    }

    private static final String CLAIM_COLUMNS = "idem_key, destination, payload, owner, fence, attempts";

    private static String claimSet(SqlDialect sql) {
        return "UPDATE " + sql.tables.outbox() + " SET status = '" + SENDING + "', owner = ?," + " lease_until = "
                + sql.nowPlusMillis() + ", fence = fence + 1, attempts = attempts + 1";
    }

    private static String claimUpdate(SqlDialect sql, String which) {
        return sql.returning(claimSet(sql) + " WHERE idem_key = " + which, CLAIM_COLUMNS);
    }

    private static OutboxRow claimRow(ResultSet row) throws SQLException {
        return new OutboxRow(
                row.getString("idem_key"),
                row.getString("destination"),
                row.getString("payload"),
                row.getString("owner"),
                row.getLong("fence"),
                row.getInt("attempts"));
    }

    private static Optional<OutboxRow> single(List<OutboxRow> claimed) {
        if (claimed.size() > 1) {
            throw new IllegalStateException("a claim returned " + claimed.size() + " intents, expected 0 or 1: a bug");
        }
        return claimed.stream().findFirst();
    }
}
