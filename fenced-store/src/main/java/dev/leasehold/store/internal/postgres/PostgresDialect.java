package dev.leasehold.store.internal.postgres;

import dev.leasehold.store.Database;
import dev.leasehold.store.FailoverDurability;
import dev.leasehold.store.internal.BatchKey;
import dev.leasehold.store.internal.BatchRow;
import dev.leasehold.store.internal.Jdbc;
import dev.leasehold.store.internal.LeaseSql;
import dev.leasehold.store.internal.SlotRow;
import dev.leasehold.store.internal.SqlDialect;
import dev.leasehold.store.internal.Tables;
import dev.leasehold.store.internal.TxDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * PostgreSQL 12 or later: ON CONFLICT, RETURNING, partial indexes, advisory locks.
 * Immutable and thread-safe.
 */
public final class PostgresDialect extends SqlDialect {
    public PostgresDialect(Tables tables) {
        super(tables);
    }

    @Override
    public TxDialect tx(long lockTimeoutMillis) {
        return new PostgresTx(lockTimeoutMillis, 0);
    }

    @Override
    public TxDialect tx(long lockTimeoutMillis, long idleMillis) {
        return new PostgresTx(lockTimeoutMillis, idleMillis);
    }

    @Override
    public Database database() {
        return Database.POSTGRESQL;
    }

    @Override
    public LeaseSql leases() {
        return new PostgresLeaseSql(this);
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

    /** FOR SHARE, not FOR KEY SHARE: an UPDATE of the token (not a key column) does not wait for a key-share lock. */
    @Override
    public Optional<String> shareMark() {
        return Optional.of("SELECT 1 FROM " + tables.fence() + " WHERE resource = ? AND token = ? FOR SHARE");
    }

    /**
     * The fence's advisory locks: {@code pg_advisory_xact_lock_shared} for a writer of the mark's token,
     * {@code pg_advisory_xact_lock} for a raise, a first use or a re-base, both released when the transaction ends
     * (so safe behind PgBouncer in transaction mode). PostgreSQL's heavyweight locks queue: a request that conflicts
     * with a WAITING one waits behind it, where a {@code FOR SHARE} row lock joins the share lockers even while an
     * UPDATE waits (issue 41). The key is the two-int4 form, a key space apart from the one-bigint form
     * ({@code pg_advisory_lock(bigint)}, which the schema install uses): class {@value #FENCE_LOCK_CLASS}
     * ({@code 0x4C485346}, "LHSF": Leasehold Store Fence) and the first 32 bits of the SHA-256 of
     * {@code "<fence table>/<resource>"}, so an application's own advisory locks collide with the store's only if
     * they use this class, and two stores with different table prefixes never share a key. Two resources whose hashes
     * collide only take turns (their writers and raises serialise); the mark of each is still read and locked on its
     * own row, so safety never depends on the key.
     */
    @Override
    public Optional<String> markQueue(boolean exclusive) {
        return Optional.of("SELECT " + (exclusive ? "pg_advisory_xact_lock" : "pg_advisory_xact_lock_shared") + "("
                + fenceLockKey("?") + ")");
    }

    /** The class (first int4) of the fence's advisory lock keys. */
    public static final int FENCE_LOCK_CLASS = 0x4C485346;

    /** The two int4 arguments of the fence's advisory lock for the resource {@code resource} (an SQL expression). */
    String fenceLockKey(String resource) {
        return FENCE_LOCK_CLASS + ", ('x' || left(encode(sha256(convert_to('" + tables.fence() + "/' || " + resource
                + ", 'UTF8')), 'hex'), 8))::bit(32)::int";
    }

    @Override
    public FailoverDurability durability(Connection connection) throws SQLException {
        return PostgresDurability.of(connection);
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

    /** A lock timeout on a row's update chain or on no row: {@link PostgresSkipLockedWaits}. */
    @Override
    public boolean skipLockedWait(SQLException e) {
        return PostgresSkipLockedWaits.onNoClaimersRow(e);
    }

    /** The expired slots are picked once, in a MATERIALIZED CTE, so the limit holds (see claimBatch). */
    @Override
    public List<SlotRow> sweepSlots(Connection tx, String job, String runner, long leaseMillis, int limit)
            throws SQLException {
        return Jdbc.query(
                tx,
                "WITH picked AS MATERIALIZED (SELECT job, slot FROM " + tables.slotRuns() + " WHERE "
                        + expiredSlots() + " ORDER BY slot FETCH FIRST " + limit + " ROWS ONLY FOR UPDATE SKIP LOCKED) "
                        + sweepSet() + " WHERE (job, slot) IN (SELECT job, slot FROM picked)"
                        + " RETURNING job, slot, runner, fence",
                SqlDialect::slotRow,
                job,
                runner,
                leaseMillis);
    }

    /** Partial indexes: only the rows a claim (or a purge) looks for are in them. */
    @Override
    public List<String> batchIndexes() {
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
    public Optional<BatchRow> claimBatch(Connection tx, String owner, long leaseMillis, int maxAttempts)
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
        return single(
                Jdbc.query(tx, sql, SqlDialect::claimRow, (long) maxAttempts, owner, leaseMillis, (long) maxAttempts));
    }

    /**
     * One statement, the plan of {@link #claimBatch} for many rows: up to {@code max} expired batches with attempts
     * left ({@code late}), then as many of the oldest pending ones as are still missing ({@code fresh}, its LIMIT
     * computed from {@code late}), each MATERIALIZED with SKIP LOCKED so that the limits hold and no claimer waits;
     * each an index range read in order, nothing sorted. The UPDATE finds the picked rows by primary key ({@code = ANY}
     * of an array: a join here let the planner, which cannot know how many rows a LIMIT with a parameter keeps, hash
     * the whole table); the final SELECT adds what orders the claims (expired first by the lease end they had, then
     * pending by enqueue order), and they are put in that order here.
     * Parameters: maxAttempts twice, max twice, owner, lease millis.
     */
    @Override
    public List<BatchRow> claimBatches(Connection tx, String owner, long leaseMillis, int maxAttempts, int max)
            throws SQLException {
        String batches = tables.batches();
        String sql = "WITH used_up AS MATERIALIZED (SELECT id FROM " + batches + " WHERE " + expired()
                + " AND attempts >= CAST(? AS INTEGER) ORDER BY lease_until FETCH FIRST 16 ROWS ONLY"
                + " FOR UPDATE SKIP LOCKED), exhausted AS (" + exhaust() + " WHERE id IN (SELECT id FROM used_up)"
                + " RETURNING id),"
                + " late AS MATERIALIZED (SELECT id, lease_until FROM " + batches + " WHERE " + expired()
                + " AND attempts < CAST(? AS INTEGER) ORDER BY lease_until LIMIT CAST(? AS INTEGER)"
                + " FOR UPDATE SKIP LOCKED),"
                + " fresh AS MATERIALIZED (SELECT id FROM " + batches + " WHERE status = 'pending' ORDER BY seq"
                + " LIMIT (CAST(? AS INTEGER) - (SELECT count(*) FROM late)) FOR UPDATE SKIP LOCKED),"
                + " picked AS (SELECT id AS pick_id, lease_until AS expired_at FROM late"
                + " UNION ALL SELECT id, NULL FROM fresh),"
                + " claimed AS (" + claimSet() + " WHERE id = ANY (ARRAY(SELECT pick_id FROM picked))"
                + " RETURNING " + CLAIM_COLUMNS + ", seq)"
                + " SELECT claimed.*, expired_at FROM claimed JOIN picked ON id = pick_id";
        record Picked(Instant expiredAt, long seq, BatchRow claim) {}
        List<Picked> claimed = Jdbc.query(
                tx,
                sql,
                row -> new Picked(Jdbc.instant(row, "expired_at"), row.getLong("seq"), claimRow(row)),
                (long) maxAttempts,
                (long) maxAttempts,
                (long) max,
                (long) max,
                owner,
                leaseMillis);
        return claimed.stream()
                .sorted(Comparator.comparing(Picked::expiredAt, Comparator.nullsLast(Comparator.naturalOrder()))
                        .thenComparingLong(Picked::seq))
                .map(Picked::claim)
                .toList();
    }

    /**
     * One statement: the claims travel as two arrays (ids, fences); the CTE locks the rows that still carry those
     * fences in id order (FOR UPDATE re-checks the fence after any wait), the UPDATE changes exactly those.
     */
    @Override
    public Set<String> finishBatches(Connection tx, List<BatchKey> claims, String result) throws SQLException {
        String batches = tables.batches();
        String sql = "WITH locked AS MATERIALIZED (SELECT id FROM " + batches + " JOIN unnest(CAST(? AS VARCHAR[]),"
                + " CAST(? AS BIGINT[])) AS given(given_id, given_fence) ON id = given_id AND fence = given_fence"
                + " WHERE status = 'processing' ORDER BY id FOR UPDATE OF " + batches + ") "
                + finishSet() + " WHERE id IN (SELECT id FROM locked) RETURNING id";
        // Through Jdbc.query, like every store statement, so that it carries the transaction's settings (lock
        // timeout, isolation) in auto-commit mode too (issue 21, defect 4: a bare prepareStatement did not). The
        // arrays travel as Java arrays, which PgJDBC binds as varchar[] and int8[].
        return new HashSet<>(Jdbc.query(
                tx,
                sql,
                row -> row.getString("id"),
                claims.stream().map(BatchKey::batchId).toArray(String[]::new),
                claims.stream().map(BatchKey::fence).toArray(Long[]::new),
                result));
    }
}
