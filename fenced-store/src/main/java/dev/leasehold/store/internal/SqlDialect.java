package dev.leasehold.store.internal;

import dev.leasehold.store.BatchClaim;
import dev.leasehold.store.Database;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * Every SQL difference between the databases lives here. Everything else is standard SQL with bound parameters.
 * Table names come from a validated prefix, never from callers' values.
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

    /**
     * Claims the oldest claimable batch (pending, or processing with an expired lease) for {@code owner}, inside the
     * caller's transaction: status processing, the lease from the database clock, {@code fence = fence + 1}.
     */
    public abstract Optional<BatchClaim> claimBatch(Connection tx, String owner, long leaseMillis) throws SQLException;

    /** Whether {@link #claimBatch} is one statement (then it needs no transaction of its own). */
    public abstract boolean claimsInOneStatement();

    final String claimable() {
        return "(status = 'pending' OR (status = 'processing' AND lease_until < " + now() + "))";
    }

    final String claimUpdate(String which) {
        return returning("UPDATE " + tables.batches() + " SET status = 'processing', owner = ?, lease_until = "
                + nowPlusMillis() + ", fence = fence + 1 WHERE id = " + which, "id, owner, fence, payload");
    }

    static Optional<BatchClaim> single(List<BatchClaim> claimed) {
        if (claimed.size() > 1) {
            throw new IllegalStateException("a claim returned " + claimed.size() + " batches, expected 0 or 1: a bug");
        }
        return claimed.stream().findFirst();
    }

    static BatchClaim claimRow(ResultSet row) throws SQLException {
        return new BatchClaim(row.getString("id"), row.getString("owner"), row.getLong("fence"),
                row.getString("payload"));
    }

    /** Column types. */
    public abstract String textType();

    public final List<String> ddl() {
        String ts = "TIMESTAMP WITH TIME ZONE";
        return List.of(
                "CREATE TABLE IF NOT EXISTS " + tables.fence() + " ("
                        + " resource VARCHAR(200) NOT NULL PRIMARY KEY,"
                        + " token BIGINT NOT NULL,"
                        + " updated_at " + ts + " NOT NULL)",
                "CREATE TABLE IF NOT EXISTS " + tables.fenceRebase() + " ("
                        + " id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
                        + " resource VARCHAR(200) NOT NULL,"
                        + " old_token BIGINT,"
                        + " new_token BIGINT NOT NULL,"
                        + " operator VARCHAR(200) NOT NULL,"
                        + " reason VARCHAR(1000) NOT NULL,"
                        + " rebased_at " + ts + " NOT NULL)",
                "CREATE TABLE IF NOT EXISTS " + tables.batches() + " ("
                        + " id VARCHAR(200) NOT NULL PRIMARY KEY,"
                        + " seq BIGINT GENERATED ALWAYS AS IDENTITY,"
                        + " payload " + textType() + " NOT NULL,"
                        + " status VARCHAR(16) NOT NULL,"
                        + " owner VARCHAR(200),"
                        + " lease_until " + ts + ","
                        + " fence BIGINT NOT NULL,"
                        + " result " + textType() + ","
                        + " enqueued_at " + ts + " NOT NULL,"
                        + " finished_at " + ts + ")",
                "CREATE INDEX IF NOT EXISTS " + tables.batches() + "_claimable ON " + tables.batches()
                        + " (status, seq)",
                "CREATE TABLE IF NOT EXISTS " + tables.slotRuns() + " ("
                        + " job VARCHAR(200) NOT NULL,"
                        + " slot " + ts + " NOT NULL,"
                        + " runner VARCHAR(200) NOT NULL,"
                        + " status VARCHAR(16) NOT NULL,"
                        + " lease_until " + ts + " NOT NULL,"
                        + " fence BIGINT NOT NULL,"
                        + " result " + textType() + ","
                        + " claimed_at " + ts + " NOT NULL,"
                        + " completed_at " + ts + ","
                        + " PRIMARY KEY (job, slot))",
                "CREATE INDEX IF NOT EXISTS " + tables.slotRuns() + "_running ON " + tables.slotRuns()
                        + " (job, status, lease_until)");
    }

    /**
     * The outbox's table and indexes ({@link dev.leasehold.store.Outbox}). Kept apart from {@link #ddl()} so it can
     * move into a numbered migration as one piece.
     */
    public final List<String> outboxDdl() {
        String ts = "TIMESTAMP WITH TIME ZONE";
        return List.of(
                "CREATE TABLE IF NOT EXISTS " + tables.outbox() + " ("
                        + " idem_key VARCHAR(200) NOT NULL PRIMARY KEY,"
                        + " seq BIGINT GENERATED ALWAYS AS IDENTITY,"
                        + " destination VARCHAR(200) NOT NULL,"
                        + " payload " + textType() + " NOT NULL,"
                        + " in_order SMALLINT NOT NULL,"
                        + " resource VARCHAR(200) NOT NULL,"
                        + " token BIGINT NOT NULL,"
                        + " status VARCHAR(16) NOT NULL,"
                        + " attempts INTEGER NOT NULL,"
                        + " owner VARCHAR(200),"
                        + " lease_until " + ts + ","
                        + " fence BIGINT NOT NULL,"
                        + " next_attempt_at " + ts + " NOT NULL,"
                        + " last_error " + textType() + ","
                        + " recorded_at " + ts + " NOT NULL,"
                        + " delivered_at " + ts + ")",
                "CREATE INDEX IF NOT EXISTS " + tables.outbox() + "_due ON " + tables.outbox() + " (status, seq)",
                "CREATE INDEX IF NOT EXISTS " + tables.outbox() + "_destination ON " + tables.outbox()
                        + " (destination, seq)");
    }

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
        public boolean claimsInOneStatement() {
            return true;
        }

        /** One statement: the subquery locks the first claimable row it finds that nobody else holds. */
        @Override
        public Optional<BatchClaim> claimBatch(Connection tx, String owner, long leaseMillis) throws SQLException {
            return single(Jdbc.query(tx, claimUpdate("(SELECT id FROM " + tables.batches() + " WHERE " + claimable()
                    + " ORDER BY seq FETCH FIRST 1 ROW ONLY FOR UPDATE SKIP LOCKED)"), SqlDialect::claimRow, owner,
                    leaseMillis));
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
        public boolean claimsInOneStatement() {
            return false;
        }

        private record Candidate(String id, long seq) {}

        /** Candidates read unlocked, oldest first, in pages of this many. */
        private static final int PAGE = 16;

        /**
         * H2 locks every row a FOR UPDATE query reads, before applying FETCH FIRST and even when the row then fails
         * the WHERE: one locking query for the oldest row would lock them all and make finishers wait. So candidates
         * are read without locks, then locked one at a time by primary key with SKIP LOCKED; a candidate that is no
         * longer claimable (another claimer took it meanwhile) is released at once with a rollback, so its owner's
         * finish does not wait behind us. Still no claimer waits on another.
         */
        @Override
        public Optional<BatchClaim> claimBatch(Connection tx, String owner, long leaseMillis) throws SQLException {
            long after = Long.MIN_VALUE;
            while (true) {
                List<Candidate> page = Jdbc.query(tx, "SELECT id, seq FROM " + tables.batches() + " WHERE "
                        + claimable() + " AND seq > ? ORDER BY seq FETCH FIRST " + PAGE + " ROWS ONLY",
                        row -> new Candidate(row.getString("id"), row.getLong("seq")), after);
                for (Candidate candidate : page) {
                    List<Boolean> locked = Jdbc.query(tx, "SELECT " + claimable() + " AS claimable FROM "
                            + tables.batches() + " WHERE id = ? FOR UPDATE SKIP LOCKED", row -> row.getBoolean(1),
                            candidate.id());
                    if (!locked.isEmpty() && locked.get(0)) {
                        return single(Jdbc.query(tx, claimUpdate("?"), SqlDialect::claimRow, owner, leaseMillis,
                                candidate.id()));
                    }
                    if (!locked.isEmpty()) {
                        tx.rollback(); // we locked a row another claimer just took: let go of it at once
                    }
                }
                if (page.size() < PAGE) {
                    return Optional.empty();
                }
                after = page.get(page.size() - 1).seq();
            }
        }
    }
}
