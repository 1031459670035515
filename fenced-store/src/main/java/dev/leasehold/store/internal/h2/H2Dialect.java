package dev.leasehold.store.internal.h2;

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
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * H2 2.x: {@code FINAL TABLE} for RETURNING, no partial indexes, and a {@code FOR UPDATE} that locks every row it
 * reads. Immutable and thread-safe.
 */
public final class H2Dialect extends SqlDialect {
    private final H2ManyClaims many = new H2ManyClaims(this);

    public H2Dialect(Tables tables) {
        super(tables);
    }

    @Override
    public TxDialect tx(long lockTimeoutMillis) {
        return new H2Tx(lockTimeoutMillis);
    }

    @Override
    public Database database() {
        return Database.H2;
    }

    @Override
    public LeaseSql leases() {
        return new H2LeaseSql(this);
    }

    @Override
    public String now() {
        return "CURRENT_TIMESTAMP";
    }

    @Override
    public String nowPlusMillis() {
        return "DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP)";
    }

    /**
     * H2's own {@code DELETE ... FETCH FIRST n ROWS ONLY}, with no sub-select. H2 2.4.240 deletes fewer than n rows
     * through the standard form ({@code WHERE (key) IN (SELECT key ... ORDER BY ... FETCH FIRST n ROWS ONLY)}) while
     * more rows match (53 of 200 random purges stopped early; none with 2.3.232), and a purge stops at its first short
     * chunk, so it left rows behind. A chunk's order does not matter to a purge: every matching row goes.
     */
    @Override
    public String chunkDelete(String table, String keyColumns, String where, String orderBy, int chunk) {
        return "DELETE FROM " + table + " WHERE " + where + " FETCH FIRST " + chunk + " ROWS ONLY";
    }

    @Override
    public String insertIfAbsent(String insert, String keyColumns) {
        return insert; // a duplicate key throws 23505, which lostInsertRace turns into 0 rows
    }

    @Override
    public boolean lostInsertRace(SQLException e) {
        return uniqueViolation(e);
    }

    @Override
    public String returning(String update, String columns) {
        return "SELECT " + columns + " FROM FINAL TABLE (" + update + ")";
    }

    /** None: H2 has no shared row lock ({@code FOR UPDATE} only), so every check takes the exclusive one. */
    @Override
    public Optional<String> shareMark() {
        return Optional.empty();
    }

    /** H2 does not replicate: nothing to fail over to. */
    @Override
    public FailoverDurability durability(Connection connection) {
        return new FailoverDurability(
                FailoverDurability.Replication.NOT_APPLICABLE, "H2 does not replicate: there is no failover", "");
    }

    @Override
    public List<String> installLock() {
        return List.of();
    }

    @Override
    public String textType() {
        return "CHARACTER VARYING";
    }

    @Override
    public boolean undefinedTable(SQLException e) {
        return "42S02".equals(e.getSQLState()) || "42S04".equals(e.getSQLState());
    }

    @Override
    public boolean claimsInOneStatement() {
        return false;
    }

    /**
     * H2 locks every expired slot the sub-select reads (see claimBatch) and updates the first {@code limit}; a
     * concurrent sweeper skips them all until this transaction ends.
     */
    @Override
    public List<SlotRow> sweepSlots(Connection tx, String job, String runner, long leaseMillis, int limit)
            throws SQLException {
        return Jdbc.query(
                tx,
                returning(
                        sweepSet() + " WHERE " + expiredSlots() + " AND (job, slot) IN (SELECT job,"
                                + " slot FROM " + tables.slotRuns() + " WHERE " + expiredSlots()
                                + " ORDER BY slot FETCH FIRST "
                                + limit + " ROWS ONLY FOR UPDATE SKIP LOCKED)",
                        "job, slot, runner, fence"),
                SqlDialect::slotRow,
                runner,
                leaseMillis,
                job,
                job);
    }

    /**
     * H2 has no partial indexes: {@code (status, seq)} (from v1) for pending batches, {@code (status,
     * lease_until)} for expired leases, {@code (status, finished_at)} for the purge. Queries order by the whole
     * index ({@code ORDER BY status, seq}) so that H2 reads the index in order instead of sorting.
     */
    @Override
    public List<String> batchIndexes() {
        return List.of(
                "CREATE INDEX IF NOT EXISTS " + tables.batches() + "_leases ON " + tables.batches()
                        + " (status, lease_until)",
                "CREATE INDEX IF NOT EXISTS " + tables.batches() + "_finished ON " + tables.batches()
                        + " (status, finished_at)");
    }

    private record Candidate(String id, long seq) {}

    /** Candidates read unlocked, oldest first, in pages of this many. */
    private static final int PAGE = 16;

    /**
     * H2 locks every row a FOR UPDATE query reads, before applying FETCH FIRST and even when the row then fails
     * the WHERE: one locking query for the oldest row would lock them all and make finishers wait. So candidates
     * are read without locks (one index range each: expired leases by {@code (status, lease_until)}, then pending
     * batches by {@code (status, seq)}), then locked one at a time by primary key with SKIP LOCKED; a candidate
     * that is no longer claimable (another claimer took it meanwhile) is released at once with a commit, so its
     * owner's finish does not wait behind us (a commit, not a rollback, so that batches this claim marked failed
     * stay failed). Still no claimer waits on another. Expired leases: one page per claim (a page all taken by
     * others means they are being claimed right now).
     */
    @Override
    public Optional<BatchRow> claimBatch(Connection tx, String owner, long leaseMillis, int maxAttempts)
            throws SQLException {
        String batches = tables.batches();
        List<Candidate> expiredPage = Jdbc.query(
                tx,
                "SELECT id, seq FROM " + batches + " WHERE " + expired() + " ORDER BY status, lease_until FETCH FIRST "
                        + PAGE + " ROWS ONLY",
                H2Dialect::candidate);
        for (Candidate candidate : expiredPage) {
            Optional<BatchRow> claim = tryLock(tx, candidate, expired(), owner, leaseMillis, maxAttempts);
            if (claim.isPresent()) {
                return claim;
            }
        }
        long after = Long.MIN_VALUE;
        while (true) {
            List<Candidate> page = Jdbc.query(
                    tx,
                    "SELECT id, seq FROM " + batches + " WHERE status = 'pending'"
                            + " AND seq > ? ORDER BY status, seq FETCH FIRST " + PAGE + " ROWS ONLY",
                    H2Dialect::candidate,
                    after);
            for (Candidate candidate : page) {
                Optional<BatchRow> claim =
                        tryLock(tx, candidate, "status = 'pending'", owner, leaseMillis, maxAttempts);
                if (claim.isPresent()) {
                    return claim;
                }
            }
            if (page.size() < PAGE) {
                return Optional.empty();
            }
            after = page.get(page.size() - 1).seq();
        }
    }

    private static Candidate candidate(ResultSet row) throws SQLException {
        return new Candidate(row.getString("id"), row.getLong("seq"));
    }

    /** Locks the candidate if nobody holds it; claims it if it is still {@code claimable}. */
    private Optional<BatchRow> tryLock(
            Connection tx, Candidate candidate, String claimable, String owner, long leaseMillis, int maxAttempts)
            throws SQLException {
        List<int[]> locked = Jdbc.query(
                tx,
                "SELECT CASE WHEN " + claimable + " THEN 1 ELSE 0 END AS ok, attempts," + " status FROM "
                        + tables.batches() + " WHERE id = ? FOR UPDATE SKIP LOCKED",
                row -> new int[] {
                    row.getInt("ok"), row.getInt("attempts"), "processing".equals(row.getString("status")) ? 1 : 0
                },
                candidate.id());
        if (locked.isEmpty()) {
            return Optional.empty(); // another claimer holds it
        }
        int[] row = locked.get(0);
        if (row[0] == 1 && row[2] == 1 && row[1] >= maxAttempts) {
            Jdbc.update(tx, exhaust() + " WHERE id = ?", candidate.id());
            tx.commit(); // failed for good, whatever this claim finds next
            return Optional.empty();
        }
        if (row[0] == 1) {
            return single(Jdbc.query(
                    tx,
                    returning(claimSet() + " WHERE id = ?", CLAIM_COLUMNS),
                    SqlDialect::claimRow,
                    owner,
                    leaseMillis,
                    candidate.id()));
        }
        tx.commit(); // we locked a row another claimer just took: let go of it at once
        return Optional.empty();
    }

    /** Pages of candidates locked a page at a time: see {@link H2ManyClaims}. */
    @Override
    public List<BatchRow> claimBatches(Connection tx, String owner, long leaseMillis, int maxAttempts, int max)
            throws SQLException {
        return many.claim(tx, owner, leaseMillis, maxAttempts, max);
    }

    /** One JDBC batch in the caller's transaction: see {@link H2ManyClaims}. */
    @Override
    public Set<String> finishBatches(Connection tx, List<BatchKey> claims, String result) throws SQLException {
        return many.finish(tx, claims, result);
    }
}
