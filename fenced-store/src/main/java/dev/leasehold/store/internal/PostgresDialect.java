package dev.leasehold.store.internal;

import dev.leasehold.store.BatchClaim;
import dev.leasehold.store.Database;
import dev.leasehold.store.SlotClaim;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * PostgreSQL 12 or later: ON CONFLICT, RETURNING, partial indexes, advisory locks.
 * Immutable and thread-safe.
 */
final class PostgresDialect extends SqlDialect {
    PostgresDialect(Tables tables) {
        super(tables);
    }

    @Override
    public Database database() {
        return Database.POSTGRESQL;
    }

    @Override
    public String now() {
        return "now()";
    }

    @Override
    public String nowPlusMillis() {
        return "(now() + CAST(? AS BIGINT) * INTERVAL '1 millisecond')";
    }

    @Override
    public String insertIfAbsent(String insert, String keyColumns) {
        return insert + " ON CONFLICT (" + keyColumns + ") DO NOTHING";
    }

    @Override
    public boolean lostInsertRace(SQLException e) {
        return false; // ON CONFLICT DO NOTHING never throws for the key (and an error would abort the transaction)
    }

    @Override
    public String returning(String update, String columns) {
        return update + " RETURNING " + columns;
    }

    @Override
    public List<String> installLock() {
        return List.of("SELECT pg_advisory_xact_lock(7208813359246129466)");
    }

    @Override
    public String textType() {
        return "TEXT";
    }

    @Override
    public boolean undefinedTable(SQLException e) {
        return "42P01".equals(e.getSQLState());
    }

    @Override
    public boolean claimsInOneStatement() {
        return true;
    }

    /** The expired slots are picked once, in a MATERIALIZED CTE, so the limit holds (see claimBatch). */
    @Override
    public List<SlotClaim> sweepSlots(Connection tx, String job, String runner, long leaseMillis, int limit)
            throws SQLException {
        return Jdbc.query(tx, "WITH picked AS MATERIALIZED (SELECT job, slot FROM " + tables.slotRuns() + " WHERE "
                + expiredSlots() + " ORDER BY slot FETCH FIRST " + limit + " ROWS ONLY FOR UPDATE SKIP LOCKED) "
                + sweepSet() + " WHERE (job, slot) IN (SELECT job, slot FROM picked)"
                + " RETURNING job, slot, runner, fence", SqlDialect::slotRow, job, runner, leaseMillis);
    }

    /** Partial indexes: only the rows a claim (or a purge) looks for are in them. */
    @Override
    List<String> batchIndexes() {
        return List.of(
                "CREATE INDEX IF NOT EXISTS " + tables.batches() + "_pending ON " + tables.batches()
                        + " (seq) WHERE status = 'pending'",
                "CREATE INDEX IF NOT EXISTS " + tables.batches() + "_leases ON " + tables.batches()
                        + " (lease_until) WHERE status = 'processing'",
                "CREATE INDEX IF NOT EXISTS " + tables.batches() + "_finished ON " + tables.batches()
                        + " (finished_at) WHERE status IN ('done', 'failed')",
                "DROP INDEX IF EXISTS " + tables.batches() + "_claimable");
    }

    /**
     * One statement. The CTEs mark up to 16 expired batches that have no attempts left as failed (MATERIALIZED:
     * a LIMIT sub-select under an UPDATE may otherwise be re-run as rows change, and creep past its limit). The UPDATE
     * takes the row the first sub-select locks (an expired lease with attempts left, from the partial index on
     * {@code lease_until}), else the one the second locks (the oldest pending, from the partial index on
     * {@code seq}): each is an InitPlan that COALESCE evaluates only when needed. SKIP LOCKED in both: no claimer
     * waits on another. Parameters: maxAttempts, owner, lease millis, maxAttempts.
     */
    @Override
    public Optional<BatchClaim> claimBatch(Connection tx, String owner, long leaseMillis, int maxAttempts)
            throws SQLException {
        String batches = tables.batches();
        String sql = "WITH used_up AS MATERIALIZED (SELECT id FROM " + batches + " WHERE " + expired()
                + " AND attempts >= CAST(? AS INTEGER) ORDER BY lease_until FETCH FIRST 16 ROWS ONLY"
                + " FOR UPDATE SKIP LOCKED), exhausted AS (" + exhaust() + " WHERE id IN (SELECT id FROM used_up)"
                + " RETURNING id) "
                + claimSet() + " WHERE id = COALESCE("
                + "(SELECT id FROM " + batches + " WHERE " + expired() + " AND attempts < CAST(? AS INTEGER)"
                + " ORDER BY lease_until FETCH FIRST 1 ROW ONLY FOR UPDATE SKIP LOCKED), "
                + "(SELECT id FROM " + batches + " WHERE status = 'pending' ORDER BY seq FETCH FIRST 1 ROW ONLY"
                + " FOR UPDATE SKIP LOCKED)) RETURNING " + CLAIM_COLUMNS;
        return single(Jdbc.query(tx, sql, SqlDialect::claimRow, (long) maxAttempts, owner, leaseMillis,
                (long) maxAttempts));
    }
}
