package dev.leasehold.store.internal.mariadb;

import dev.leasehold.store.Database;
import dev.leasehold.store.FailoverDurability;
import dev.leasehold.store.StoreException;
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
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * MariaDB 10.6 or later and MySQL 8.0 or later, on InnoDB. What differs from PostgreSQL, and how it is handled:
 * <ul>
 *   <li>Time: {@code DATETIME(6)} holding UTC, from {@code UTC_TIMESTAMP(6)} (the database clock, microseconds);
 *       never {@code TIMESTAMP}, which ends in 2038 and converts through the session time zone. {@link Jdbc} reads
 *       and binds such columns as UTC.</li>
 *   <li>Keys: every table is {@code utf8mb4} with a binary NO PAD collation ({@code utf8mb4_nopad_bin}, on MySQL
 *       {@code utf8mb4_0900_bin}; schema version 5 converts tables made before): with the default case-insensitive
 *       collation "Billing" and "billing" would be one fence, with the PAD SPACE {@code utf8mb4_bin} "billing" and
 *       "billing ". Payloads are {@code MEDIUMTEXT}.</li>
 *   <li>Insert-if-absent is a plain INSERT; a duplicate key (error 1062, SQLState 23000) is a lost race. Not
 *       {@code INSERT IGNORE} (it turns other errors into warnings too) and not a no-op
 *       {@code ON DUPLICATE KEY UPDATE} (with found-rows semantics it reports 1 row, and a gate would pass).</li>
 *   <li>Update counts: the store needs found-rows semantics (the driver default, {@code useAffectedRows=false}): an
 *       UPDATE that writes the values a row already has (an equal token in the same microsecond) must count 1, or
 *       the gate would call a current writer stale. A URL with {@code useAffectedRows=true} is refused at
 *       detection.</li>
 *   <li>No RETURNING on UPDATE and no sub-select with LIMIT under an UPDATE or DELETE of the same table (errors 1093
 *       and 1235): a claim is {@code SELECT ... LIMIT 1 FOR UPDATE SKIP LOCKED} and then an UPDATE and SELECT by key,
 *       in one short transaction; a sweep selects, then updates by key; a purge is {@code DELETE ... ORDER BY ...
 *       LIMIT n}.</li>
 *   <li>SKIP LOCKED makes a writing statement unsafe for a statement-based binary log (MariaDB error 4175,
 *       {@code ER_BINLOG_UNSAFE_SKIP_LOCKED}): so SKIP LOCKED appears only in plain SELECTs, which are not logged, and
 *       the writes go by key (checked by hand against MariaDB 10.11 with {@code --binlog-format=STATEMENT}). Should
 *       4175 ever come, the failure says to use {@code binlog_format=ROW}.</li>
 *   <li>No partial indexes: {@code (status, seq)}, {@code (status, lease_until)} and {@code (status, finished_at)},
 *       each read in index order (ORDER BY the index's second column: with {@code ORDER BY status, ...}
 *       MariaDB sorted).</li>
 *   <li>MySQL has no {@code CREATE INDEX IF NOT EXISTS} nor {@code ADD COLUMN IF NOT EXISTS}: there the migrations
 *       use the plain forms, which the schema version table runs once each.</li>
 * </ul>
 * Transactions run at READ COMMITTED ({@link MariaDbTx}): at REPEATABLE READ, InnoDB's gap locks deadlock a fence's
 * first-use UPDATE and INSERT, and MariaDB's {@code innodb_snapshot_isolation} raises error 1020. Deadlocks (1213)
 * and 1020 are retried like serialization failures, 1205 is a lock timeout ({@code SqlStates}).
 * Immutable and thread-safe.
 *
 * <p>Why one file of more than 300 lines: every SQL difference of MariaDB and MySQL is kept in this one place, as the
 * dialects' rule is.
 */
public final class MariaDbDialect extends SqlDialect {

    /** MariaDB's ER_BINLOG_UNSAFE_SKIP_LOCKED: "SKIP LOCKED makes this statement unsafe" (statement binlog). */
    static final int SKIP_LOCKED_WITH_STATEMENT_BINLOG = 4175;

    private final Database database;
    private final MariaDbManyClaims many = new MariaDbManyClaims(this);

    public MariaDbDialect(Tables tables, Database database) {
        super(tables);
        this.database = database;
    }

    /**
     * Refuses a JDBC URL that asks MariaDB Connector/J to replay transactions after a failover: the driver would send
     * the transaction's statements again on another connection, the gate's check among them, without the gate
     * reading the check's new answer, so a token refused by then could commit.
     */
    public static void refuseTransactionReplay(String url) {
        if (sets(url, "transactionReplay=true")) {
            throw new StoreException("the fenced store cannot use a JDBC URL that sets transactionReplay=true: after a"
                    + " failover the driver would replay the transaction, the token check included, without the store"
                    + " reading the check's new answer, so a stale token could commit; remove it (the store retries"
                    + " what is safe to retry, and reports a commit whose outcome is unknown)");
        }
    }

    /** Refuses a JDBC URL that asks for affected-rows update counts (the store needs found rows). */
    public static void refuseAffectedRows(String url) {
        if (sets(url, "useAffectedRows=true")) {
            throw new StoreException("the fenced store needs found-rows update counts on MariaDB and MySQL (an UPDATE"
                    + " that writes a row's own values counts 1), but the JDBC URL sets useAffectedRows=true: remove it"
                    + " (the default is false)");
        }
    }

    /** Whether the JDBC {@code url} sets {@code option} ({@code name=value}), in any case, spaces ignored. */
    private static boolean sets(String url, String option) {
        return url != null && url.toLowerCase(Locale.ROOT).replace(" ", "").contains(option.toLowerCase(Locale.ROOT));
    }

    @Override
    public TxDialect tx(long lockTimeoutMillis) {
        return new MariaDbTx(lockTimeoutMillis, 0, database);
    }

    /** MariaDB: the idle bound travels in the SET before the transaction ({@code idle_transaction_timeout}). */
    @Override
    public TxDialect tx(long lockTimeoutMillis, long idleMillis) {
        return new MariaDbTx(lockTimeoutMillis, idleMillis, database);
    }

    @Override
    public Database database() {
        return database;
    }

    @Override
    public LeaseSql leases() {
        return new MariaDbLeaseSql(this);
    }

    @Override
    public String now() {
        return "UTC_TIMESTAMP(6)";
    }

    @Override
    public String nowPlusMillis() {
        return "DATE_ADD(UTC_TIMESTAMP(6), INTERVAL CAST(? AS SIGNED) * 1000 MICROSECOND)";
    }

    @Override
    public String insertIfAbsent(String insert, String keyColumns) {
        return insert; // a duplicate key throws 1062, which lostInsertRace turns into 0 rows
    }

    @Override
    public boolean lostInsertRace(SQLException e) {
        return uniqueViolation(e);
    }

    @Override
    public boolean uniqueViolation(SQLException e) {
        return e.getErrorCode() == 1062;
    }

    @Override
    public String returning(String update, String columns) {
        throw new UnsupportedOperationException("MariaDB and MySQL have no RETURNING on UPDATE: use updateByKey");
    }

    @Override
    public boolean hasReturning() {
        return false;
    }

    @Override
    public String concat(String... parts) {
        return "CONCAT(" + String.join(", ", parts) + ")";
    }

    @Override
    public String firstRows(int n) {
        return "LIMIT " + n;
    }

    @Override
    public String chunkDelete(String table, String keyColumns, String where, String orderBy, int chunk) {
        return "DELETE FROM " + table + " WHERE " + where + " ORDER BY " + orderBy + " LIMIT " + chunk;
    }

    /**
     * {@code LOCK IN SHARE MODE} (MariaDB and MySQL both know it): an S lock on the mark's record. At READ COMMITTED
     * InnoDB releases the lock of a record the WHERE then rejects (another token), so a check that finds no row holds
     * nothing; a locking read always reads the newest committed version; and a waiting X request (a raise) makes new
     * S requests queue behind it, so a stream of writers cannot starve a new leader's {@code advance}.
     */
    @Override
    public Optional<String> shareMark() {
        return Optional.of("SELECT 1 FROM " + tables.fence() + " WHERE resource = ? AND token = ? LOCK IN SHARE MODE");
    }

    /**
     * None: every migration statement is idempotent on MariaDB ({@code IF NOT EXISTS}), DDL commits at once anyway,
     * and the version rows are inserted if absent. (On MySQL two first installs at the same moment can fail on an
     * index the other created; run it again.)
     */
    @Override
    public FailoverDurability durability(Connection connection) throws SQLException {
        return MariaDbDurability.of(connection);
    }

    @Override
    public List<String> installLock() {
        return List.of();
    }

    @Override
    public String textType() {
        return "MEDIUMTEXT";
    }

    @Override
    public String ts() {
        return "DATETIME(6)";
    }

    @Override
    public String identity() {
        return "BIGINT NOT NULL AUTO_INCREMENT UNIQUE";
    }

    @Override
    public String tableOptions() {
        return " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=" + keyCollation();
    }

    /**
     * A binary collation that does NOT pad: {@code utf8mb4_bin} is PAD SPACE, so "billing" and "billing " would be
     * one key (issue 21, defect 7). MariaDB (10.2 and later) calls it {@code utf8mb4_nopad_bin}; MySQL 8.0
     * {@code utf8mb4_0900_bin}.
     */
    private String keyCollation() {
        return database == Database.MYSQL ? "utf8mb4_0900_bin" : "utf8mb4_nopad_bin";
    }

    /** Schema version 5: every table of the store (and so every key column) converted to {@link #keyCollation()}. */
    @Override
    protected List<String> exactKeys() {
        return java.util.stream.Stream.of(
                        tables.fence(),
                        tables.fenceRebase(),
                        tables.fenceHistory(),
                        tables.batches(),
                        tables.slotRuns(),
                        tables.outbox())
                .map(table -> "ALTER TABLE " + table + " CONVERT TO CHARACTER SET utf8mb4 COLLATE " + keyCollation())
                .toList();
    }

    @Override
    public String ifNotExists() {
        return database == Database.MYSQL ? "" : "IF NOT EXISTS ";
    }

    @Override
    public boolean undefinedTable(SQLException e) {
        return e.getErrorCode() == 1146 || "42S02".equals(e.getSQLState());
    }

    @Override
    public boolean claimsInOneStatement() {
        return false;
    }

    @Override
    public List<String> batchIndexes() {
        return List.of(
                "CREATE INDEX " + ifNotExists() + tables.batches() + "_leases ON " + tables.batches()
                        + " (status, lease_until)",
                "CREATE INDEX " + ifNotExists() + tables.batches() + "_finished ON " + tables.batches()
                        + " (status, finished_at)");
    }

    /**
     * Up to 16 expired batches with no attempts left are locked and marked failed; then the expired batch whose lease
     * ended first, else the oldest pending one, is locked (each one range of an index, read in its order, SKIP LOCKED
     * so that no claimer waits on another) and claimed by id. FORCE INDEX: with few expired rows the optimizer may
     * otherwise read the range and sort it (a filesort), and then SKIP LOCKED would lock in its own order. InnoDB at
     * READ COMMITTED keeps the lock of the row it returns only. Needs {@code tx} to be a transaction.
     */
    @Override
    public Optional<BatchRow> claimBatch(Connection tx, String owner, long leaseMillis, int maxAttempts)
            throws SQLException {
        List<String> picked = pick(tx, maxAttempts, 1);
        if (picked.isEmpty()) {
            return Optional.empty();
        }
        return single(updateByKey(
                tx,
                claimSet() + " WHERE id = ?",
                tables.batches(),
                "id",
                picked.get(0),
                CLAIM_COLUMNS,
                SqlDialect::claimRow,
                owner,
                leaseMillis));
    }

    /**
     * Marks up to 16 expired batches with no attempts left as failed, then locks up to {@code max} claimable ones:
     * expired leases first (longest expired first), then the oldest pending. Returns their ids in that order.
     */
    List<String> pick(Connection tx, int maxAttempts, int max) throws SQLException {
        String batches = tables.batches();
        String leases = batches + " FORCE INDEX (" + batches + "_leases)";
        List<String> usedUp = lock(
                tx,
                "SELECT id FROM " + leases + " WHERE " + expired() + " AND attempts >= ?"
                        + " ORDER BY lease_until LIMIT 16 FOR UPDATE SKIP LOCKED",
                (long) maxAttempts);
        if (!usedUp.isEmpty()) {
            Jdbc.update(tx, exhaust() + " WHERE id IN (" + marks(usedUp.size()) + ")", usedUp.toArray());
        }
        List<String> picked = new ArrayList<>(lock(
                tx,
                "SELECT id FROM " + leases + " WHERE " + expired() + " AND attempts < ? ORDER BY lease_until LIMIT "
                        + max + " FOR UPDATE SKIP LOCKED",
                (long) maxAttempts));
        if (picked.size() < max) {
            picked.addAll(lock(
                    tx,
                    "SELECT id FROM " + batches + " FORCE INDEX (" + batches + "_claimable) WHERE"
                            + " status = 'pending' ORDER BY seq LIMIT " + (max - picked.size())
                            + " FOR UPDATE SKIP LOCKED"));
        }
        return picked;
    }

    /**
     * Claims up to {@code max} batches with the order and rules of {@link #claimBatch} (issue 16's {@code claimUpTo};
     * once this meets {@code SqlDialect.claimBatches}, it implements it). See {@link MariaDbManyClaims}.
     */
    public List<BatchRow> claimBatches(Connection tx, String owner, long leaseMillis, int maxAttempts, int max)
            throws SQLException {
        return many.claim(tx, owner, leaseMillis, maxAttempts, max);
    }

    /** Issue 16's {@code finishAll} (implements {@code SqlDialect.finishBatches}). See {@link MariaDbManyClaims}. */
    public Set<String> finishBatches(Connection tx, List<BatchKey> claims, String result) throws SQLException {
        return many.finish(tx, claims, result);
    }

    /** Locks the expired slots (SKIP LOCKED), then takes them over with one UPDATE by key and reads them back. */
    @Override
    public List<SlotRow> sweepSlots(Connection tx, String job, String runner, long leaseMillis, int limit)
            throws SQLException {
        String table = tables.slotRuns();
        List<Instant> slots = skipLockedExplained(ignored -> Jdbc.query(
                tx,
                "SELECT slot FROM " + table + " WHERE " + expiredSlots() + " ORDER BY slot LIMIT " + limit
                        + " FOR UPDATE SKIP LOCKED",
                row -> Jdbc.instant(row, "slot"),
                job));
        if (slots.isEmpty()) {
            return List.of();
        }
        String bySlot = " WHERE job = ? AND slot IN (" + marks(slots.size()) + ")";
        List<Object> params = new ArrayList<>(List.of(runner, leaseMillis, job));
        params.addAll(slots);
        Jdbc.update(tx, sweepSet() + bySlot, params.toArray());
        List<Object> keys = new ArrayList<>();
        keys.add(job);
        keys.addAll(slots);
        return Jdbc.query(
                tx,
                "SELECT job, slot, runner, fence FROM " + table + bySlot + " ORDER BY slot",
                SqlDialect::slotRow,
                keys.toArray());
    }

    /** Any SKIP LOCKED query of the outbox and the others goes through here, for error 4175's explanation. */
    static <T> T skipLockedExplained(Jdbc.Body<T> query) throws SQLException {
        try {
            return query.apply(null);
        } catch (SQLException e) {
            if (e.getErrorCode() == SKIP_LOCKED_WITH_STATEMENT_BINLOG) {
                throw new SQLException(
                        "a statement with SKIP LOCKED was refused as unsafe for the server's"
                                + " statement-based binary log (MariaDB error 4175): the fenced store's claims and sweeps"
                                + " need binlog_format=ROW (or MIXED) where a binary log is on",
                        e.getSQLState(),
                        e.getErrorCode(),
                        e);
            }
            throw e;
        }
    }

    private static List<String> lock(Connection tx, String sql, Object... params) throws SQLException {
        return skipLockedExplained(ignored -> Jdbc.query(tx, sql, row -> row.getString(1), params));
    }

    static String marks(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }
}
