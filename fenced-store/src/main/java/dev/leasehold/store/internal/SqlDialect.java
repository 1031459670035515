package dev.leasehold.store.internal;

import dev.leasehold.store.Database;
import dev.leasehold.store.FailoverDurability;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Every SQL difference between the databases lives here and in the subclasses, one package per database
 * ({@code internal.postgres}, {@code internal.h2}, {@code internal.mariadb} for MariaDB and MySQL; chosen in
 * {@link Dialects}), the schema's numbered migrations included.
 * Everything else is standard SQL with bound parameters. Table names come from a validated prefix, never from
 * callers' values. Immutable and thread-safe.
 *
 * <p>Why one file of more than 300 lines: the schema's numbered migrations must stay in one ordered list, next to the
 * column types they are written with.
 */
public abstract class SqlDialect {

    /** SQLState of a unique-key violation (PostgreSQL and H2; MariaDB and MySQL say 23000, error 1062). */
    public static final String UNIQUE_VIOLATION = "23505";

    public final Tables tables;

    protected SqlDialect(Tables tables) {
        this.tables = tables;
    }

    /** The transaction framing of this database (isolation, lock timeout), with {@code lockTimeoutMillis}. */
    public abstract TxDialect tx(long lockTimeoutMillis);

    /**
     * The transaction framing with, where the database can end a transaction that sits idle and the framing can say
     * so without a round trip of its own, that bound too ({@code idleMillis}; 0: the server's own setting). By
     * default the bound is not applied: H2 is embedded (a frozen process freezes its database with it), and MySQL has
     * no idle bound for transactions.
     */
    public TxDialect tx(long lockTimeoutMillis, long idleMillis) {
        return tx(lockTimeoutMillis);
    }

    public abstract Database database();

    /** The lease table's statements on this database ({@code dev.leasehold.store.lease.LeaseElection}). */
    public abstract LeaseSql leases();

    /** The database's clock, read in SQL. Leases are computed and compared with it only, never the client's. */
    public abstract String now();

    /** {@link #now()} plus a bound parameter of milliseconds. */
    public abstract String nowPlusMillis();

    /** An INSERT that does nothing when the key exists. Parameters as in {@code insert}. */
    public abstract String insertIfAbsent(String insert, String keyColumns);

    /** Whether an insert-if-absent that threw {@code e} lost a race for the key (then: 0 rows inserted). */
    public abstract boolean lostInsertRace(SQLException e);

    /**
     * An UPDATE that returns {@code columns} of the rows it changed, as a query; only where {@link #hasReturning()}.
     */
    public abstract String returning(String update, String columns);

    /** Whether {@code e} is a unique-key violation. */
    public boolean uniqueViolation(SQLException e) {
        return UNIQUE_VIOLATION.equals(e.getSQLState());
    }

    /** Whether an UPDATE can return the rows it changed ({@link #returning}); MariaDB and MySQL cannot. */
    public boolean hasReturning() {
        return true;
    }

    /**
     * Runs {@code update} (an UPDATE whose WHERE ends in {@code key = ?}; parameters {@code params}, then
     * {@code keyValue}) and returns {@code columns} of the row it changed: with {@link #returning} where the database
     * has it, else as the UPDATE and then a SELECT by key in the same transaction (the UPDATE holds the row's lock, so
     * the SELECT reads what it wrote).
     */
    public final <T> List<T> updateByKey(
            Connection tx,
            String update,
            String table,
            String key,
            Object keyValue,
            String columns,
            Jdbc.Row<T> row,
            Object... params)
            throws SQLException {
        Object[] all = java.util.Arrays.copyOf(params, params.length + 1);
        all[params.length] = keyValue;
        if (hasReturning()) {
            return Jdbc.query(tx, returning(update, columns), row, all);
        }
        if (Jdbc.update(tx, update, all) == 0) {
            return List.of();
        }
        return Jdbc.query(tx, "SELECT " + columns + " FROM " + table + " WHERE " + key + " = ?", row, keyValue);
    }

    /** A string concatenation of SQL expressions ({@code ||} in standard SQL). */
    public String concat(String... parts) {
        return String.join(" || ", parts);
    }

    /** A clause that keeps the first {@code n} rows of an ordered query. */
    public String firstRows(int n) {
        return "FETCH FIRST " + n + " ROWS ONLY";
    }

    /**
     * A DELETE of at most {@code chunk} rows of {@code table} matching {@code where}, the first by {@code orderBy};
     * {@code keyColumns} identify a row (a sub-select by key, where the database allows one with a limit).
     */
    public String chunkDelete(String table, String keyColumns, String where, String orderBy, int chunk) {
        return "DELETE FROM " + table + " WHERE (" + keyColumns + ") IN (SELECT " + keyColumns + " FROM " + table
                + " WHERE " + where + " ORDER BY " + orderBy + " " + firstRows(chunk) + ")";
    }

    /**
     * The fence's shared check, where the database has a shared row lock: a query of one row if the resource's mark
     * equals the token, share-locked until the transaction ends (writers of one token do not exclude each other; a
     * raise, an UPDATE of the row, waits for them all), and of no row (nothing locked) otherwise. Under READ
     * COMMITTED a locking read that waited for a raise reads the newest committed mark, so a raise that committed
     * while it waited makes it find no row. Parameters: resource, token. Empty where the database has no shared row
     * lock (H2): there every check takes the exclusive lock.
     */
    public abstract Optional<String> shareMark();

    /**
     * The queue in front of the resource's mark, where the mark's row lock does not queue fairly: a statement that
     * takes a transaction-level lock on the resource, shared ({@code exclusive} false: a writer of the mark's token)
     * or exclusive (a raise, a first use, a re-base), held until the transaction ends, that every check takes BEFORE
     * it reads or locks the mark. A request waits behind every earlier request it conflicts with, granted or waiting,
     * so a raise waits only for the sharers that came before it, and sharers that come after it wait for it
     * (issue 41). Run as a statement of its own, so that at READ COMMITTED the mark is read with a snapshot taken
     * after the lock was granted. Parameter: resource. Empty where the row lock already queues (InnoDB puts a new
     * shared request behind a waiting exclusive one) or there is no shared lock to queue (H2).
     */
    public Optional<String> markQueue(boolean exclusive) {
        return Optional.empty();
    }

    /**
     * Whether the connected server can lose an acknowledged commit when it fails over, from what it reports to this
     * connection's role (read only; see {@link FailoverDurability}).
     */
    public abstract FailoverDurability durability(Connection connection) throws SQLException;

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
    public abstract Optional<BatchRow> claimBatch(Connection tx, String owner, long leaseMillis, int maxAttempts)
            throws SQLException;

    /**
     * Whether {@code e} is a lock timeout that a claim locking with SKIP LOCKED ({@link #claimBatch},
     * {@link #claimBatches}, {@link #sweepSlots}, the outbox's claim) met although it skips every row another
     * transaction holds: a wait on no claimer's row, which the claim runs again after, a bounded number of times
     * ({@link Jdbc#withConnectionRetrying}). A statement that failed on a lock
     * timeout kept nothing. None by default: on H2 and MariaDB/MySQL a SKIP LOCKED claim has nothing to wait for but
     * a lock on the whole table (DDL), which reads like a row's wait and is left to the caller. PostgreSQL's are
     * {@code PostgresSkipLockedWaits}.
     */
    public boolean skipLockedWait(SQLException e) {
        return false;
    }

    /**
     * Whether {@link #claimBatch}, {@link #claimBatches} and {@link #finishBatches} are each one statement (then they
     * need no transaction of their own).
     */
    public abstract boolean claimsInOneStatement();

    /**
     * Claims up to {@code max} batches for {@code owner}, with the order and rules of {@link #claimBatch}: batches whose
     * lease expired first (longest expired first; one with no attempts left is marked failed instead), then the oldest
     * pending ones, each locked with SKIP LOCKED (never waiting on another claimer). Returned in that order.
     */
    public abstract List<BatchRow> claimBatches(Connection tx, String owner, long leaseMillis, int maxAttempts, int max)
            throws SQLException;

    /**
     * Marks done with {@code result} each batch whose current claim is one of {@code claims} (same id and fence, still
     * processing), all or nothing; rows are locked in id order, so two calls never deadlock on each other.
     *
     * @return the ids of the batches finished; the other claims were stale
     */
    public abstract Set<String> finishBatches(Connection tx, List<BatchKey> claims, String result) throws SQLException;

    /** Sets a batch done; the condition follows (a WHERE clause). Parameters: result. */
    public final String finishSet() {
        return "UPDATE " + tables.batches() + " SET status = 'done', result = ?, lease_until = NULL, finished_at = "
                + now();
    }

    /** {@code n} comma-separated parameter markers. */
    public static String markers(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }

    /**
     * Takes over, for {@code runner}, at most {@code limit} running slots of {@code job} whose lease expired, oldest
     * slot first, skipping slots other sweepers hold: {@code fence = fence + 1}, a new lease from the database clock.
     */
    public abstract List<SlotRow> sweepSlots(Connection tx, String job, String runner, long leaseMillis, int limit)
            throws SQLException;

    /** The running slots of {@code job} (a parameter) whose lease ended. */
    public final String expiredSlots() {
        return "job = ? AND status = 'running' AND lease_until < " + now();
    }

    public final String sweepSet() {
        return "UPDATE " + tables.slotRuns() + " SET runner = ?, lease_until = " + nowPlusMillis()
                + ", fence = fence + 1";
    }

    public static SlotRow slotRow(ResultSet row) throws SQLException {
        return new SlotRow(
                row.getString("job"), Jdbc.instant(row, "slot"), row.getString("runner"), row.getLong("fence"));
    }

    /** A processing batch whose lease ended (database clock). */
    public final String expired() {
        return "status = 'processing' AND lease_until < " + now();
    }

    /** Sets a locked claimable row to processing for a new claimer; parameters: owner, lease millis. */
    public final String claimSet() {
        return "UPDATE " + tables.batches() + " SET status = 'processing', owner = ?, lease_until = " + nowPlusMillis()
                + ", fence = fence + 1, attempts = attempts + 1";
    }

    /** What a claim returns, for {@link #claimRow}. */
    public static final String CLAIM_COLUMNS = "id, owner, fence, payload, attempts, lease_until";

    /** Marks expired batches that used up their attempts as failed; the condition follows (a WHERE clause). */
    public final String exhaust() {
        return "UPDATE " + tables.batches() + " SET status = 'failed', lease_until = NULL, finished_at = " + now()
                + ", error = "
                + concat("'the lease of attempt '", "attempts", "' ended before it finished; no attempts left'");
    }

    public static Optional<BatchRow> single(List<BatchRow> claimed) {
        if (claimed.size() > 1) {
            throw new IllegalStateException("a claim returned " + claimed.size() + " batches, expected 0 or 1: a bug");
        }
        return claimed.stream().findFirst();
    }

    public static BatchRow claimRow(ResultSet row) throws SQLException {
        return new BatchRow(
                row.getString("id"),
                row.getString("owner"),
                row.getLong("fence"),
                row.getString("payload"),
                row.getInt("attempts"),
                Jdbc.instant(row, "lease_until"));
    }

    /** Column types. */
    public abstract String textType();

    /** The schema version table, created before any migration (it records them). */
    public final String versionTable() {
        return "CREATE TABLE IF NOT EXISTS " + tables.schemaVersion() + " ("
                + " version INTEGER NOT NULL PRIMARY KEY,"
                + " description VARCHAR(200) NOT NULL,"
                + " installed_at " + ts() + " NOT NULL)" + tableOptions();
    }

    /** Records {@code migration} as applied; parameters: version, description. */
    public final String recordVersion() {
        return "INSERT INTO " + tables.schemaVersion() + " (version, description, installed_at) VALUES (?, ?, " + now()
                + ")";
    }

    /**
     * Every migration, oldest first; the last one's version is the schema version this code needs. Append a new
     * step at the end with the next number; never change a step that was released.
     */
    public final List<Migration> migrations() {
        return List.of(
                new Migration(1, "fence marks, rebase audit, batches, slot runs", v1()),
                new Migration(2, "batch attempts and failures; index-friendly claims; retention indexes", v2()),
                new Migration(3, "the fenced outbox", v3()),
                new Migration(4, "the fence's history: every token that became a resource's mark", v4()),
                new Migration(5, "keys compare exactly, trailing blanks included (NO PAD collation)", v5()),
                new Migration(6, "leases for leader election on the database, with a generation as token", v6()),
                new Migration(
                        7, "who re-based a fence: the operating system and database users beside the operator", v7()));
    }

    private static final String TS = "TIMESTAMP WITH TIME ZONE";

    /** The timestamp column type (an instant). */
    public String ts() {
        return TS;
    }

    /** An identity column's type: a BIGINT the database numbers, ascending. */
    public String identity() {
        return "BIGINT GENERATED ALWAYS AS IDENTITY";
    }

    /** What follows a CREATE TABLE's column list (engine, character set, collation), or "". */
    public String tableOptions() {
        return "";
    }

    /** "IF NOT EXISTS " where CREATE INDEX and ADD COLUMN have it, else "" (then a migration runs once only). */
    public String ifNotExists() {
        return "IF NOT EXISTS ";
    }

    /** The tables as the first release created them (so a database from before schema versions is at v1 already). */
    private List<String> v1() {
        return List.of(
                "CREATE TABLE IF NOT EXISTS " + tables.fence() + " ("
                        + " resource VARCHAR(200) NOT NULL PRIMARY KEY,"
                        + " token BIGINT NOT NULL,"
                        + " updated_at " + ts() + " NOT NULL)" + tableOptions(),
                "CREATE TABLE IF NOT EXISTS " + tables.fenceRebase() + " ("
                        + " id " + identity() + " PRIMARY KEY,"
                        + " resource VARCHAR(200) NOT NULL,"
                        + " old_token BIGINT,"
                        + " new_token BIGINT NOT NULL,"
                        + " operator VARCHAR(200) NOT NULL,"
                        + " reason VARCHAR(1000) NOT NULL,"
                        + " rebased_at " + ts() + " NOT NULL)" + tableOptions(),
                "CREATE TABLE IF NOT EXISTS " + tables.batches() + " ("
                        + " id VARCHAR(200) NOT NULL PRIMARY KEY,"
                        + " seq " + identity() + ","
                        + " payload " + textType() + " NOT NULL,"
                        + " status VARCHAR(16) NOT NULL,"
                        + " owner VARCHAR(200),"
                        + " lease_until " + ts() + ","
                        + " fence BIGINT NOT NULL,"
                        + " result " + textType() + ","
                        + " enqueued_at " + ts() + " NOT NULL,"
                        + " finished_at " + ts() + ")" + tableOptions(),
                "CREATE INDEX " + ifNotExists() + tables.batches() + "_claimable ON " + tables.batches()
                        + " (status, seq)",
                "CREATE TABLE IF NOT EXISTS " + tables.slotRuns() + " ("
                        + " job VARCHAR(200) NOT NULL,"
                        + " slot " + ts() + " NOT NULL,"
                        + " runner VARCHAR(200) NOT NULL,"
                        + " status VARCHAR(16) NOT NULL,"
                        + " lease_until " + ts() + " NOT NULL,"
                        + " fence BIGINT NOT NULL,"
                        + " result " + textType() + ","
                        + " claimed_at " + ts() + " NOT NULL,"
                        + " completed_at " + ts() + ","
                        + " PRIMARY KEY (job, slot))" + tableOptions(),
                "CREATE INDEX " + ifNotExists() + tables.slotRuns() + "_running ON " + tables.slotRuns()
                        + " (job, status, lease_until)");
    }

    /** Attempts and errors on batches (a claimed batch of v1 had {@code fence} claims), then the indexes. */
    private List<String> v2() {
        List<String> statements = new ArrayList<>(List.of(
                "ALTER TABLE " + tables.batches() + " ADD COLUMN " + ifNotExists()
                        + "attempts INTEGER DEFAULT 0 NOT NULL",
                "ALTER TABLE " + tables.batches() + " ADD COLUMN " + ifNotExists() + "error " + textType(),
                "UPDATE " + tables.batches() + " SET attempts = fence WHERE attempts < fence",
                "CREATE INDEX " + ifNotExists() + tables.slotRuns() + "_done ON " + tables.slotRuns()
                        + " (status, slot)"));
        statements.addAll(batchIndexes());
        return statements;
    }

    /** The outbox's table and indexes ({@link dev.leasehold.store.outbox.Outbox}). */
    private List<String> v3() {
        return List.of(
                "CREATE TABLE IF NOT EXISTS " + tables.outbox() + " ("
                        + " idem_key VARCHAR(200) NOT NULL PRIMARY KEY,"
                        + " seq " + identity() + ","
                        + " destination VARCHAR(200) NOT NULL,"
                        + " payload " + textType() + " NOT NULL,"
                        + " in_order SMALLINT NOT NULL,"
                        + " resource VARCHAR(200) NOT NULL,"
                        + " token BIGINT NOT NULL,"
                        + " status VARCHAR(16) NOT NULL,"
                        + " attempts INTEGER NOT NULL,"
                        + " owner VARCHAR(200),"
                        + " lease_until " + ts() + ","
                        + " fence BIGINT NOT NULL,"
                        + " next_attempt_at " + ts() + " NOT NULL,"
                        + " last_error " + textType() + ","
                        + " recorded_at " + ts() + " NOT NULL,"
                        + " delivered_at " + ts() + ")" + tableOptions(),
                "CREATE INDEX " + ifNotExists() + tables.outbox() + "_due ON " + tables.outbox() + " (status, seq)",
                "CREATE INDEX " + ifNotExists() + tables.outbox() + "_destination ON " + tables.outbox()
                        + " (destination, seq)");
    }

    /** The history of the fence marks ({@link dev.leasehold.store.FenceGate#history}). */
    private List<String> v4() {
        return List.of(
                "CREATE TABLE IF NOT EXISTS " + tables.fenceHistory() + " ("
                        + " id " + identity() + " PRIMARY KEY,"
                        + " resource VARCHAR(200) NOT NULL,"
                        + " token BIGINT NOT NULL,"
                        + " previous_token BIGINT,"
                        + " holder VARCHAR(200),"
                        + " kind VARCHAR(16) NOT NULL,"
                        + " reason VARCHAR(1000),"
                        + " marked_at " + ts() + " NOT NULL)" + tableOptions(),
                "CREATE INDEX " + ifNotExists() + tables.fenceHistory() + "_resource ON " + tables.fenceHistory()
                        + " (resource, kind, id)",
                // the re-bases audited before this version, so that the history shows them too
                "INSERT INTO " + tables.fenceHistory() + " (resource, token, previous_token, holder, kind, reason,"
                        + " marked_at) SELECT resource, new_token, old_token, operator, 'rebased', reason, rebased_at"
                        + " FROM " + tables.fenceRebase() + " WHERE NOT EXISTS (SELECT 1 FROM " + tables.fenceHistory()
                        + " WHERE kind = 'rebased') ORDER BY id");
    }

    /**
     * Version 5: every key compares exactly, trailing blanks included ("billing" and "billing " are two resources, two
     * outbox keys). Only where a key collation pads (MariaDB, MySQL); see {@link #exactKeys()}.
     */
    private List<String> v5() {
        return exactKeys();
    }

    /**
     * The statements that make the existing tables' text columns compare exactly, trailing blanks included; none by
     * default. PostgreSQL needs none: its deterministic collations compare trailing blanks in VARCHAR (only CHAR(n)
     * pads, and the store has none). H2 needs none: VARCHAR compares every character (it pads CHAR only). MariaDB and
     * MySQL do: their {@code utf8mb4_bin} is PAD SPACE.
     */
    protected List<String> exactKeys() {
        return List.of();
    }

    /**
     * The lease table ({@code dev.leasehold.store.lease.LeaseElection}, {@link LeaseSql}): one row per name, created by
     * the first take. Version 6, after version 5: on MariaDB/MySQL it is created with the NO PAD keys of {@link
     * #tableOptions()}.
     */
    private List<String> v6() {
        return List.of("CREATE TABLE IF NOT EXISTS " + tables.leases() + " ("
                + " name VARCHAR(200) NOT NULL PRIMARY KEY,"
                + " holder VARCHAR(200) NOT NULL,"
                + " lease_until " + ts() + " NOT NULL,"
                + " generation BIGINT NOT NULL)" + tableOptions());
    }

    private List<String> v7() {
        return List.of(
                "ALTER TABLE " + tables.fenceRebase() + " ADD COLUMN " + ifNotExists() + "os_user VARCHAR(200)",
                "ALTER TABLE " + tables.fenceRebase() + " ADD COLUMN " + ifNotExists() + "db_user VARCHAR(200)");
    }

    /** Every table of the current version and the columns the store reads and writes in it (for verify). */
    public final java.util.Map<String, String> columnsInUse() {
        return java.util.Map.of(
                tables.fence(), "resource, token, updated_at",
                tables.fenceRebase(),
                        "id, resource, old_token, new_token, operator, reason, rebased_at, os_user, db_user",
                tables.fenceHistory(), "id, resource, token, previous_token, holder, kind, reason, marked_at",
                tables.batches(),
                        "id, seq, payload, status, owner, lease_until, fence, result, enqueued_at,"
                                + " finished_at, attempts, error",
                tables.slotRuns(), "job, slot, runner, status, lease_until, fence, result, claimed_at, completed_at",
                tables.leases(), "name, holder, lease_until, generation",
                tables.outbox(),
                        "idem_key, seq, destination, payload, in_order, resource, token, status, attempts,"
                                + " owner, lease_until, fence, next_attempt_at, last_error, recorded_at, delivered_at");
    }

    /** The indexes {@link #claimBatch} and the purge of finished batches read, per database. */
    public abstract List<String> batchIndexes();
}
