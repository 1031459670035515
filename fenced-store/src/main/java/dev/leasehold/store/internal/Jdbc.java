package dev.leasehold.store.internal;

import dev.leasehold.store.CommitOutcomeUnknownException;
import dev.leasehold.store.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The store's transactions. Every one of them, whatever the pool hands out:
 * <ol>
 *   <li>runs at READ COMMITTED with the configured lock timeout ({@link TxDialect}: on PostgreSQL both travel with
 *       the first statement, on H2 they are set on the connection and restored before it is closed);</li>
 *   <li>turns auto-commit off, and back on only once the transaction is over (committed or rolled back): a failure
 *       can never be committed by the restore;</li>
 *   <li>rolls back on ANY Throwable, then rethrows it unchanged (an {@link SQLException} becomes a
 *       {@link StoreException} naming the operation); a failed commit is a {@link CommitOutcomeUnknownException};</li>
 *   <li>retries the store's own statements a few times ({@value #ATTEMPTS} attempts in all) after a serialization
 *       failure or a deadlock, and after what the call adds ({@link #withConnectionRetrying}: a
 *       claim's lock timeout that SKIP LOCKED cannot avoid), a new transaction each time; never a caller's work;</li>
 *   <li>lends the caller's work (see {@link #inTransaction(String, Body, Work)}) a {@link GuardedConnection} that
 *       cannot end or reconfigure the transaction; if the work swallowed such a refusal, everything is rolled back
 *       and a StoreException says so.</li>
 * </ol>
 * A body must not roll back on PostgreSQL (its later statements would run without the settings), except to end an
 * aborted transaction before a last read. {@link #withConnection} runs each statement as a transaction of its own
 * instead. Thread-safe: all state is per call.
 */
public final class Jdbc {

    /** The store's own statements. */
    @FunctionalInterface
    public interface Body<T> {
        T apply(Connection connection) throws SQLException;
    }

    /** The caller's work, run after the store's statements on a guarded connection. */
    @FunctionalInterface
    public interface Work<T> {
        T apply(Connection guarded) throws SQLException;
    }

    /** Told of every connection before it is used. */
    @FunctionalInterface
    public interface OnConnection {
        void accept(Connection connection) throws SQLException;
    }

    /** Attempts of the store's own statements after serialization failures, deadlocks and what a call adds. */
    static final int ATTEMPTS = 5;

    private final DataSource dataSource;
    private final OnConnection onConnection;
    private final Supplier<TxDialect> tx;

    /** @param tx the transaction settings; asked after {@code onConnection} saw the first connection */
    public Jdbc(DataSource dataSource, OnConnection onConnection, Supplier<TxDialect> tx) {
        this.dataSource = dataSource;
        this.onConnection = onConnection;
        this.tx = tx;
    }

    /** One transaction of the store's own statements: commit if {@code body} returns, roll back if it throws. */
    public <T> T inTransaction(String operation, Body<T> body) {
        return run(operation, body, null, false, NOTHING_MORE);
    }

    /**
     * As {@link #inTransaction(String, Body)}, and {@code alsoRetried} names failures that the store's statements may
     * simply run again after too (rolled back, a new transaction each time, {@value #ATTEMPTS} attempts in all).
     */
    public <T> T inTransactionRetrying(String operation, Predicate<SQLException> alsoRetried, Body<T> body) {
        return run(operation, body, null, false, alsoRetried);
    }

    /**
     * One transaction: the store's {@code check} first (retried like any store statement), then the caller's
     * {@code work} on a guarded connection (never retried), then commit.
     */
    public <T> T inTransaction(String operation, Body<?> check, Work<T> work) {
        return run(operation, check, work, false, NOTHING_MORE);
    }

    /**
     * Statements each committed on its own, as in auto-commit mode, each still at READ COMMITTED with the lock
     * timeout (on PostgreSQL each travels in a transaction block of its own, in one round trip). If the pool hands
     * out connections with auto-commit off, the body runs in one transaction instead. Retried after a
     * serialization failure or deadlock like any store statement: each statement must be safe to run again. A
     * connection lost once a statement that may change data ({@link #update}, {@link #updates},
     * {@link #checkedUpdate}, a {@link #query} that is not a SELECT) was sent is a
     * {@link CommitOutcomeUnknownException}: in auto-commit mode it committed when it ran, and it may have run.
     */
    public <T> T withConnection(String operation, Body<T> body) {
        return run(operation, body, null, true, NOTHING_MORE);
    }

    /**
     * As {@link #withConnection(String, Body)}, and {@code alsoRetried} names failures after which the body may
     * simply run again too: each must have kept nothing (a statement that failed, in its own rolled-back block).
     */
    public <T> T withConnectionRetrying(String operation, Predicate<SQLException> alsoRetried, Body<T> body) {
        return run(operation, body, null, true, alsoRetried);
    }

    /** No failure retried beyond serialization failures and deadlocks. */
    private static final Predicate<SQLException> NOTHING_MORE = e -> false;

    private <T> T run(
            String operation, Body<?> store, Work<T> work, boolean eachOnItsOwn, Predicate<SQLException> alsoRetried) {
        for (int attempt = 1; ; attempt++) {
            try {
                return Transaction.once(
                        dataSource, onConnection, tx, operation, store, work, eachOnItsOwn, alsoRetried);
            } catch (Transaction.Transient e) {
                if (attempt == ATTEMPTS) {
                    throw new StoreException(operation + " (tried " + ATTEMPTS + " times)", e.sql);
                }
                // back off 1..2^attempt ms, jittered, so that colliding transactions do not collide again
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(
                        ThreadLocalRandom.current().nextLong(1000, 1000L << attempt)));
            }
        }
    }

    /** Maps one row of a result set. */
    @FunctionalInterface
    public interface Row<T> {
        T map(ResultSet row) throws SQLException;
    }

    /** Runs an INSERT, UPDATE or DELETE with bound parameters; returns the update count. */
    public static int update(Connection connection, String sql, Object... params) throws SQLException {
        Prologue.Wrap wrap = Prologue.take(connection, true);
        try (PreparedStatement statement = connection.prepareStatement(wrap.before() + sql + wrap.after())) {
            bind(statement, params);
            if (wrap.isEmpty()) {
                return statement.executeUpdate();
            }
            if (skip(statement, wrap)) {
                throw new SQLException("expected an update count, got rows: " + sql);
            }
            int count = statement.getUpdateCount();
            ended(statement, wrap, sql);
            return count;
        } catch (SQLException | RuntimeException e) {
            Prologue.failed(connection);
            throw e;
        }
    }

    /**
     * Runs {@code sqls}, statements with their parameters in order ({@code params} in one array for all of them),
     * in one round trip; returns their update counts. Only where {@link TxDialect#multiStatement()}, unless
     * {@code sqls} holds one statement. A statement that returns rows, or more results than statements given, throw
     * {@link IllegalArgumentException}.
     */
    public static int[] updates(Connection connection, List<String> sqls, Object... params) throws SQLException {
        Prologue.Wrap wrap = Prologue.take(connection, true);
        try (PreparedStatement statement =
                connection.prepareStatement(wrap.before() + String.join("; ", sqls) + wrap.after())) {
            bind(statement, params);
            boolean rows = skip(statement, wrap);
            int[] counts = new int[sqls.size()];
            for (int i = 0; i < counts.length; i++) {
                if (i > 0) {
                    rows = statement.getMoreResults();
                }
                if (rows || statement.getUpdateCount() < 0) {
                    throw new IllegalArgumentException(
                            "statement " + (i + 1) + " returned rows or no update count: " + sqls.get(i));
                }
                counts[i] = statement.getUpdateCount();
            }
            ended(statement, wrap, String.join("; ", sqls));
            return counts;
        } catch (SQLException | RuntimeException e) {
            Prologue.failed(connection);
            throw e;
        }
    }

    /**
     * Runs {@code check}, a query, and then {@code sql}, an INSERT, UPDATE or DELETE, in one round trip (where
     * {@link TxDialect#multiStatement()}); {@code params} holds the parameters of both, in order. Returns the update
     * count of {@code sql}. If {@code check} fails, {@code sql} does not run. {@code check} may be several statements
     * ({@code "a; b"}): the last one is the query, the results of those before it are skipped.
     */
    public static int checkedUpdate(Connection connection, String check, String sql, Object... params)
            throws SQLException {
        Prologue.Wrap wrap = Prologue.take(connection, true);
        try (PreparedStatement statement =
                connection.prepareStatement(wrap.before() + check + "; " + sql + wrap.after())) {
            bind(statement, params);
            boolean rows = skip(statement, wrap);
            for (int i = Prologue.Wrap.statements(check); i > 0; i--) {
                rows = statement.getMoreResults(); // a check of several statements: its last one answers
            }
            if (!rows) {
                throw new IllegalStateException("the check returned no rows: " + check);
            }
            if (statement.getMoreResults() || statement.getUpdateCount() < 0) {
                throw new IllegalArgumentException("the statement returned rows or no update count: " + sql);
            }
            int count = statement.getUpdateCount();
            ended(statement, wrap, sql);
            return count;
        } catch (SQLException | RuntimeException e) {
            Prologue.failed(connection);
            throw e;
        }
    }

    /** Runs a query (or an UPDATE that returns rows) with bound parameters. */
    public static <T> List<T> query(Connection connection, String sql, Row<T> row, Object... params)
            throws SQLException {
        Prologue.Wrap wrap = Prologue.take(connection, writes(sql));
        try (PreparedStatement statement = connection.prepareStatement(wrap.before() + sql + wrap.after())) {
            bind(statement, params);
            if (!wrap.isEmpty() && !skip(statement, wrap)) {
                throw new SQLException("expected rows, got an update count: " + sql);
            }
            List<T> rows = new ArrayList<>();
            try (ResultSet results = wrap.isEmpty() ? statement.executeQuery() : statement.getResultSet()) {
                while (results.next()) {
                    rows.add(row.map(results));
                }
            }
            if (!wrap.isEmpty()) {
                ended(statement, wrap, sql);
            }
            return rows;
        } catch (SQLException | RuntimeException e) {
            Prologue.failed(connection);
            throw e;
        }
    }

    /**
     * Runs several statements in one round trip ({@code "a; b"}, where {@link TxDialect#multiStatement()}), each
     * with a snapshot of its own at READ COMMITTED, and returns the rows of the last one (the results of the others
     * are skipped); {@code params} holds the parameters of all of them, in order. With one statement it is
     * {@link #query}.
     */
    public static <T> List<T> queryLast(Connection connection, String sql, Row<T> row, Object... params)
            throws SQLException {
        int before = Prologue.Wrap.statements(sql);
        if (before == 0) {
            return query(connection, sql, row, params);
        }
        Prologue.Wrap wrap = Prologue.take(connection, writes(sql));
        try (PreparedStatement statement = connection.prepareStatement(wrap.before() + sql + wrap.after())) {
            bind(statement, params);
            boolean rows = skip(statement, wrap);
            for (int i = before; i > 0; i--) {
                rows = statement.getMoreResults();
            }
            if (!rows) {
                throw new SQLException("expected rows, got an update count: " + sql);
            }
            List<T> found = new ArrayList<>();
            try (ResultSet results = statement.getResultSet()) {
                while (results.next()) {
                    found.add(row.map(results));
                }
            }
            if (!wrap.isEmpty()) {
                ended(statement, wrap, sql);
            }
            return found;
        } catch (SQLException | RuntimeException e) {
            Prologue.failed(connection);
            throw e;
        }
    }

    /**
     * Whether a query may change data: anything but a SELECT (an UPDATE or INSERT with RETURNING, a data-modifying
     * WITH), and a SELECT from H2's data-change delta table ({@code SELECT ... FROM FINAL TABLE (UPDATE ...)}, the
     * lease's take and H2's RETURNING). A SELECT ... FOR UPDATE locks, but keeps nothing once its own transaction ends.
     */
    static boolean writes(String sql) {
        if (!sql.stripLeading().regionMatches(true, 0, "SELECT", 0, 6)) {
            return true;
        }
        String upper = sql.toUpperCase(java.util.Locale.ROOT);
        return upper.contains("FINAL TABLE") || upper.contains("NEW TABLE") || upper.contains("OLD TABLE");
    }

    /** Executes, skips the results of what was sent before the statement; returns whether its result is rows. */
    private static boolean skip(PreparedStatement statement, Prologue.Wrap wrap) throws SQLException {
        boolean rows = statement.execute();
        for (int i = Prologue.Wrap.statements(wrap.before()); i > 0; i--) {
            rows = statement.getMoreResults();
        }
        return rows;
    }

    /**
     * Verifies the end of a block sent in one round trip: the result of each statement sent after the caller's (the
     * COMMIT of a statement's own transaction block), each an update count, and no result after them. A statement
     * whose text hid what followed it (a line comment swallowing "; COMMIT") or added statements fails here, and the
     * caller's catch rolls the block back ({@link Prologue#failed}): never reported as done while its transaction is
     * still open.
     */
    private static void ended(PreparedStatement statement, Prologue.Wrap wrap, String sql) throws SQLException {
        int after = Prologue.Wrap.statements(wrap.after());
        for (int i = 1; i <= after; i++) {
            if (statement.getMoreResults() || statement.getUpdateCount() < 0) {
                throw new SQLException(
                        "the end of the statement's transaction block ("
                                + wrap.after().substring(1).trim()
                                + ") did not run: the statement's text changed the block; rolled back: " + sql,
                        FRAMING_STATE);
            }
        }
        if (statement.getMoreResults() || statement.getUpdateCount() >= 0) {
            throw new SQLException(
                    "more results came back than statements were sent: the statement's text changed the block;"
                            + " rolled back: " + sql,
                    FRAMING_STATE);
        }
    }

    /** SQLState of a block whose results do not match the statements sent (invalid transaction state). */
    public static final String FRAMING_STATE = "25000";

    /** 0 rows: the race was lost (a normal outcome). 1: done. More: a bug, since every such update names a key. */
    public static boolean oneRow(int count, String operation) {
        if (count > 1) {
            throw new IllegalStateException(operation + " changed " + count + " rows, expected 0 or 1: a bug");
        }
        return count == 1;
    }

    /** An instant column: a timestamp with time zone, or (MariaDB, MySQL) a {@code DATETIME} that holds UTC. */
    public static Instant instant(ResultSet row, String column) throws SQLException {
        if ("DATETIME".equalsIgnoreCase(row.getMetaData().getColumnTypeName(row.findColumn(column)))) {
            LocalDateTime utc = row.getObject(column, LocalDateTime.class);
            return utc == null ? null : utc.toInstant(ZoneOffset.UTC);
        }
        OffsetDateTime value = row.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    /** Whether instants are stored as {@code DATETIME} in UTC (MariaDB, MySQL) rather than with a time zone. */
    private static boolean utcDateTimes(PreparedStatement statement) throws SQLException {
        String product = statement.getConnection().getMetaData().getDatabaseProductName();
        String name = product == null ? "" : product.toLowerCase(java.util.Locale.ROOT);
        return name.contains("mariadb") || name.contains("mysql");
    }

    private static void bind(PreparedStatement statement, Object[] params) throws SQLException {
        for (int i = 0; i < params.length; i++) {
            Object param = params[i];
            if (param instanceof Instant instant) {
                if (utcDateTimes(statement)) {
                    statement.setObject(i + 1, LocalDateTime.ofInstant(instant, ZoneOffset.UTC));
                } else {
                    statement.setObject(i + 1, OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
                }
            } else if (param instanceof Long value) {
                statement.setLong(i + 1, value);
            } else if (param instanceof String value) {
                statement.setString(i + 1, value);
            } else if (param == null) {
                statement.setNull(i + 1, Types.NULL);
            } else {
                statement.setObject(i + 1, param);
            }
        }
    }
}
