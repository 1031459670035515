package dev.leasehold.store.internal;

import dev.leasehold.store.BatchClaim;
import dev.leasehold.store.Database;
import dev.leasehold.store.SlotClaim;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Every SQL difference between the databases lives here, the schema's numbered migrations included. Everything else
 * is standard SQL with bound parameters. Table names come from a validated prefix, never from callers' values.
 * Immutable and thread-safe.
 */
public abstract class SqlDialect {

    /** SQLState of a unique-key violation (both databases). */
    static final String UNIQUE_VIOLATION = "23505";

    public final Tables tables;

    SqlDialect(Tables tables) {
        this.tables = tables;
    }

    public static SqlDialect of(Database database, Tables tables) {
        return switch (database) {
            case POSTGRESQL -> new Postgres(tables);
            case H2 -> new H2(tables);
        };
    }

    public abstract Database database();

    /** The database's clock, read in SQL. Leases are computed and compared with it only, never the client's. */
    public abstract String now();

    /** {@link #now()} plus a bound parameter of milliseconds. */
    public abstract String nowPlusMillis();

    /** An INSERT that does nothing when the key exists. Parameters as in {@code insert}. */
    public abstract String insertIfAbsent(String insert, String keyColumns);

    /** Whether an insert-if-absent that threw {@code e} lost a race for the key (then: 0 rows inserted). */
    public abstract boolean lostInsertRace(SQLException e);

    /** An UPDATE that returns {@code columns} of the rows it changed, as a query. */
    public abstract String returning(String update, String columns);

    /** Statements that serialize concurrent schema installs, run first in the install transaction. */
    public abstract List<String> installLock();

    /** Whether {@code e} says a table (or view) does not exist. */
    public abstract boolean undefinedTable(SQLException e);

    /**
     * Claims a batch for {@code owner}, inside the caller's transaction (or as one auto-committed statement, see
     * {@link #claimsInOneStatement}): first a batch whose lease expired, longest expired first, then the oldest
     * pending one. Status processing, the lease from the database clock, {@code fence = fence + 1},
     * {@code attempts = attempts + 1}. An expired batch that already had {@code maxAttempts} attempts is marked
     * {@code failed} instead. Each step is a range of one index (never a scan or sort of the table), so a claim
     * costs the same with an empty queue as behind a long backlog.
     */
    public abstract Optional<BatchClaim> claimBatch(Connection tx, String owner, long leaseMillis, int maxAttempts)
            throws SQLException;

    /** Whether {@link #claimBatch} is one statement (then it needs no transaction of its own). */
    public abstract boolean claimsInOneStatement();

    /**
     * Takes over, for {@code runner}, at most {@code limit} running slots of {@code job} whose lease expired, oldest
     * slot first, skipping slots other sweepers hold: {@code fence = fence + 1}, a new lease from the database clock.
     */
    public abstract List<SlotClaim> sweepSlots(Connection tx, String job, String runner, long leaseMillis, int limit)
            throws SQLException;

    /** The running slots of {@code job} (a parameter) whose lease ended. */
    final String expiredSlots() {
        return "job = ? AND status = 'running' AND lease_until < " + now();
    }

    final String sweepSet() {
        return "UPDATE " + tables.slotRuns() + " SET runner = ?, lease_until = " + nowPlusMillis()
                + ", fence = fence + 1";
    }

    static SlotClaim slotRow(ResultSet row) throws SQLException {
        return new SlotClaim(row.getString("job"), Jdbc.instant(row, "slot"), row.getString("runner"),
                row.getLong("fence"));
    }

    /** A processing batch whose lease ended (database clock). */
    final String expired() {
        return "status = 'processing' AND lease_until < " + now();
    }

    /** Sets a locked claimable row to processing for a new claimer; parameters: owner, lease millis. */
    final String claimSet() {
        return "UPDATE " + tables.batches() + " SET status = 'processing', owner = ?, lease_until = " + nowPlusMillis()
                + ", fence = fence + 1, attempts = attempts + 1";
    }

    /** What a claim returns, for {@link #claimRow}. */
    static final String CLAIM_COLUMNS = "id, owner, fence, payload, attempts, lease_until";

    /** Marks expired batches that used up their attempts as failed; the condition follows (a WHERE clause). */
    final String exhaust() {
        return "UPDATE " + tables.batches() + " SET status = 'failed', lease_until = NULL, finished_at = " + now()
                + ", error = 'the lease of attempt ' || attempts || ' ended before it finished; no attempts left'";
    }

    static Optional<BatchClaim> single(List<BatchClaim> claimed) {
        if (claimed.size() > 1) {
            throw new IllegalStateException("a claim returned " + claimed.size() + " batches, expected 0 or 1: a bug");
        }
        return claimed.stream().findFirst();
    }

    static BatchClaim claimRow(ResultSet row) throws SQLException {
        return new BatchClaim(row.getString("id"), row.getString("owner"), row.getLong("fence"),
                row.getString("payload"), row.getInt("attempts"), Jdbc.instant(row, "lease_until"));
    }

    /** Column types. */
    public abstract String textType();

    /** The schema version table, created before any migration (it records them). */
    public final String versionTable() {
        return "CREATE TABLE IF NOT EXISTS " + tables.schemaVersion() + " ("
                + " version INTEGER NOT NULL PRIMARY KEY,"
                + " description VARCHAR(200) NOT NULL,"
                + " installed_at " + TS + " NOT NULL)";
    }

    /** Records {@code migration} as applied; parameters: version, description. */
    public final String recordVersion() {
        return "INSERT INTO " + tables.schemaVersion() + " (version, description, installed_at) VALUES (?, ?, "
                + now() + ")";
    }

    /**
     * Every migration, oldest first; the last one's version is the schema version this code needs. Append a new
     * step at the end with the next number; never change a step that was released.
     */
    public final List<Migration> migrations() {
        return List.of(
                new Migration(1, "fence marks, rebase audit, batches, slot runs", v1()),
                new Migration(2, "batch attempts and failures; index-friendly claims; retention indexes", v2()));
    }

    private static final String TS = "TIMESTAMP WITH TIME ZONE";

    /** The tables as the first release created them (so a database from before schema versions is at v1 already). */
    private List<String> v1() {
        return List.of(
                "CREATE TABLE IF NOT EXISTS " + tables.fence() + " ("
                        + " resource VARCHAR(200) NOT NULL PRIMARY KEY,"
                        + " token BIGINT NOT NULL,"
                        + " updated_at " + TS + " NOT NULL)",
                "CREATE TABLE IF NOT EXISTS " + tables.fenceRebase() + " ("
                        + " id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
                        + " resource VARCHAR(200) NOT NULL,"
                        + " old_token BIGINT,"
                        + " new_token BIGINT NOT NULL,"
                        + " operator VARCHAR(200) NOT NULL,"
                        + " reason VARCHAR(1000) NOT NULL,"
                        + " rebased_at " + TS + " NOT NULL)",
                "CREATE TABLE IF NOT EXISTS " + tables.batches() + " ("
                        + " id VARCHAR(200) NOT NULL PRIMARY KEY,"
                        + " seq BIGINT GENERATED ALWAYS AS IDENTITY,"
                        + " payload " + textType() + " NOT NULL,"
                        + " status VARCHAR(16) NOT NULL,"
                        + " owner VARCHAR(200),"
                        + " lease_until " + TS + ","
                        + " fence BIGINT NOT NULL,"
                        + " result " + textType() + ","
                        + " enqueued_at " + TS + " NOT NULL,"
                        + " finished_at " + TS + ")",
                "CREATE INDEX IF NOT EXISTS " + tables.batches() + "_claimable ON " + tables.batches()
                        + " (status, seq)",
                "CREATE TABLE IF NOT EXISTS " + tables.slotRuns() + " ("
                        + " job VARCHAR(200) NOT NULL,"
                        + " slot " + TS + " NOT NULL,"
                        + " runner VARCHAR(200) NOT NULL,"
                        + " status VARCHAR(16) NOT NULL,"
                        + " lease_until " + TS + " NOT NULL,"
                        + " fence BIGINT NOT NULL,"
                        + " result " + textType() + ","
                        + " claimed_at " + TS + " NOT NULL,"
                        + " completed_at " + TS + ","
                        + " PRIMARY KEY (job, slot))",
                "CREATE INDEX IF NOT EXISTS " + tables.slotRuns() + "_running ON " + tables.slotRuns()
                        + " (job, status, lease_until)");
    }

    /** Attempts and errors on batches (a claimed batch of v1 had {@code fence} claims), then the indexes. */
    private List<String> v2() {
        List<String> statements = new ArrayList<>(List.of(
                "ALTER TABLE " + tables.batches() + " ADD COLUMN IF NOT EXISTS attempts INTEGER DEFAULT 0 NOT NULL",
                "ALTER TABLE " + tables.batches() + " ADD COLUMN IF NOT EXISTS error " + textType(),
                "UPDATE " + tables.batches() + " SET attempts = fence WHERE attempts < fence",
                "CREATE INDEX IF NOT EXISTS " + tables.slotRuns() + "_done ON " + tables.slotRuns()
                        + " (status, slot)"));
        statements.addAll(batchIndexes());
        return statements;
    }

    /** Every table of the current version and the columns the store reads and writes in it (for verify). */
    public final java.util.Map<String, String> columnsInUse() {
        return java.util.Map.of(
                tables.fence(), "resource, token, updated_at",
                tables.fenceRebase(), "id, resource, old_token, new_token, operator, reason, rebased_at",
                tables.batches(), "id, seq, payload, status, owner, lease_until, fence, result, enqueued_at,"
                        + " finished_at, attempts, error",
                tables.slotRuns(), "job, slot, runner, status, lease_until, fence, result, claimed_at, completed_at");
    }

    /** The indexes {@link #claimBatch} and the purge of finished batches read, per database. */
    abstract List<String> batchIndexes();

    static final class Postgres extends SqlDialect {
        Postgres(Tables tables) {
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

    static final class H2 extends SqlDialect {
        H2(Tables tables) {
            super(tables);
        }

        @Override
        public Database database() {
            return Database.H2;
        }

        @Override
        public String now() {
            return "CURRENT_TIMESTAMP";
        }

        @Override
        public String nowPlusMillis() {
            return "DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP)";
        }

        @Override
        public String insertIfAbsent(String insert, String keyColumns) {
            return insert; // a duplicate key throws 23505, which lostInsertRace turns into 0 rows
        }

        @Override
        public boolean lostInsertRace(SQLException e) {
            return UNIQUE_VIOLATION.equals(e.getSQLState());
        }

        @Override
        public String returning(String update, String columns) {
            return "SELECT " + columns + " FROM FINAL TABLE (" + update + ")";
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
        public List<SlotClaim> sweepSlots(Connection tx, String job, String runner, long leaseMillis, int limit)
                throws SQLException {
            return Jdbc.query(tx, returning(sweepSet() + " WHERE " + expiredSlots() + " AND (job, slot) IN (SELECT job,"
                    + " slot FROM " + tables.slotRuns() + " WHERE " + expiredSlots() + " ORDER BY slot FETCH FIRST "
                    + limit + " ROWS ONLY FOR UPDATE SKIP LOCKED)", "job, slot, runner, fence"), SqlDialect::slotRow,
                    runner, leaseMillis, job, job);
        }

        /**
         * H2 has no partial indexes: {@code (status, seq)} (from v1) for pending batches, {@code (status,
         * lease_until)} for expired leases, {@code (status, finished_at)} for the purge. Queries order by the whole
         * index ({@code ORDER BY status, seq}) so that H2 reads the index in order instead of sorting.
         */
        @Override
        List<String> batchIndexes() {
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
        public Optional<BatchClaim> claimBatch(Connection tx, String owner, long leaseMillis, int maxAttempts)
                throws SQLException {
            String batches = tables.batches();
            List<Candidate> expiredPage = Jdbc.query(tx, "SELECT id, seq FROM " + batches + " WHERE " + expired()
                    + " ORDER BY status, lease_until FETCH FIRST " + PAGE + " ROWS ONLY", H2::candidate);
            for (Candidate candidate : expiredPage) {
                Optional<BatchClaim> claim = tryLock(tx, candidate, expired(), owner, leaseMillis, maxAttempts);
                if (claim.isPresent()) {
                    return claim;
                }
            }
            long after = Long.MIN_VALUE;
            while (true) {
                List<Candidate> page = Jdbc.query(tx, "SELECT id, seq FROM " + batches + " WHERE status = 'pending'"
                        + " AND seq > ? ORDER BY status, seq FETCH FIRST " + PAGE + " ROWS ONLY", H2::candidate, after);
                for (Candidate candidate : page) {
                    Optional<BatchClaim> claim = tryLock(tx, candidate, "status = 'pending'", owner, leaseMillis,
                            maxAttempts);
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
        private Optional<BatchClaim> tryLock(Connection tx, Candidate candidate, String claimable, String owner,
                                             long leaseMillis, int maxAttempts) throws SQLException {
            List<int[]> locked = Jdbc.query(tx, "SELECT CASE WHEN " + claimable + " THEN 1 ELSE 0 END AS ok, attempts,"
                    + " status FROM " + tables.batches() + " WHERE id = ? FOR UPDATE SKIP LOCKED",
                    row -> new int[] {row.getInt("ok"), row.getInt("attempts"),
                            "processing".equals(row.getString("status")) ? 1 : 0}, candidate.id());
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
                return single(Jdbc.query(tx, returning(claimSet() + " WHERE id = ?", CLAIM_COLUMNS),
                        SqlDialect::claimRow, owner, leaseMillis, candidate.id()));
            }
            tx.commit(); // we locked a row another claimer just took: let go of it at once
            return Optional.empty();
        }
    }
}
