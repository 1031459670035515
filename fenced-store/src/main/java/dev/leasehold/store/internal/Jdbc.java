package dev.leasehold.store.internal;

import dev.leasehold.store.CommitOutcomeUnknownException;
import dev.leasehold.store.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
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
 *   <li>retries the store's own statements a few times after a serialization failure or a deadlock (a new
 *       transaction each time); never a caller's work;</li>
 *   <li>lends the caller's work (see {@link #inTransaction(String, Body, Work)}) a {@link GuardedConnection} that
 *       cannot end or reconfigure the transaction; if the work swallowed such a refusal, everything is rolled back
 *       and a StoreException says so.</li>
 * </ol>
 * A body must not roll back on PostgreSQL (its later statements would run without the settings). Thread-safe: all
 * state is per call.
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

    /** Attempts of the store's own statements after serialization failures and deadlocks. */
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
        return run(operation, body, null, false);
    }

    /**
     * One transaction: the store's {@code check} first (retried like any store statement), then the caller's
     * {@code work} on a guarded connection (never retried), then commit.
     */
    public <T> T inTransaction(String operation, Body<?> check, Work<T> work) {
        return run(operation, check, work, false);
    }

    /**
     * Statements each committed on its own, as in auto-commit mode, each still at READ COMMITTED with the lock
     * timeout (on PostgreSQL each travels in a transaction block of its own, in one round trip). If the pool hands
     * out connections with auto-commit off, the body runs in one transaction instead. Retried after a
     * serialization failure or deadlock like any store statement: each statement must be safe to run again.
     */
    public <T> T withConnection(String operation, Body<T> body) {
        return run(operation, body, null, true);
    }

    private <T> T run(String operation, Body<?> store, Work<T> work, boolean eachOnItsOwn) {
        for (int attempt = 1; ; attempt++) {
            try {
                return once(operation, store, work, eachOnItsOwn);
            } catch (Transient e) {
                if (attempt == ATTEMPTS) {
                    throw failure(operation + " (tried " + ATTEMPTS + " times)", e.sql);
                }
                // back off 1..2^attempt ms, jittered, so that colliding transactions do not collide again
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(
                        ThreadLocalRandom.current().nextLong(1000, 1000L << attempt)));
            }
        }
    }

    /** A serialization failure or deadlock of the store's own statements: rolled back, may run again. */
    private static final class Transient extends Exception {
        private static final long serialVersionUID = 1L;
        final transient SQLException sql;

        Transient(SQLException sql) {
            super(null, null, false, false);
            this.sql = sql;
        }
    }

    @SuppressWarnings("unchecked")
    private <T> T once(String operation, Body<?> store, Work<T> work, boolean eachOnItsOwn) throws Transient {
        Connection connection;
        try {
            connection = dataSource.getConnection();
        } catch (SQLException e) {
            throw failure(operation, e);
        }
        try {
            TxDialect settings;
            TxDialect.Restore restore;
            boolean autoCommit;
            try {
                onConnection.accept(connection);
                settings = tx.get();
                restore = settings.enter(connection);
                autoCommit = connection.getAutoCommit();
                if (autoCommit && eachOnItsOwn) {
                    return (T) eachOnItsOwn(operation, connection, settings, restore, store);
                }
                if (autoCommit) {
                    connection.setAutoCommit(false);
                }
            } catch (SQLException e) {
                throw failure(operation, e);
            }
            boolean over = false;
            try {
                Object stored;
                Connection carrier = Prologue.once(connection, settings.prologue());
                try {
                    stored = store.apply(carrier);
                    if (work != null) {
                        Prologue.flush(carrier); // the work runs under the same settings
                    }
                } catch (SQLException e) {
                    over = rollback(connection, e);
                    if (SqlStates.of(e).retriedByTheStore() && over) {
                        throw new Transient(e);
                    }
                    throw failure(operation, e);
                } catch (Throwable t) {
                    over = rollback(connection, t);
                    throw t;
                }
                T result;
                if (work == null) {
                    result = (T) stored;
                } else {
                    GuardedConnection guarded = new GuardedConnection(connection);
                    try {
                        result = work.apply(guarded.connection());
                    } catch (SQLException e) {
                        over = rollback(connection, e);
                        throw failure(operation, e);
                    } catch (Throwable t) {
                        over = rollback(connection, t);
                        throw t; // unchanged, checked or not
                    } finally {
                        guarded.end();
                    }
                    if (guarded.refused() != null) {
                        StoreException e = new StoreException(operation + " failed: the work called "
                                + guarded.refused() + ", which the gate refused, and went on; nothing of the work was"
                                + " kept (rolled back)");
                        over = rollback(connection, e);
                        throw e;
                    }
                }
                try {
                    connection.commit();
                    over = true;
                } catch (SQLException e) {
                    over = rollback(connection, e);
                    throw new CommitOutcomeUnknownException(operation, e);
                }
                return result;
            } finally {
                if (over) {
                    restore(connection, autoCommit, restore);
                } else {
                    abort(connection); // still open and its state unknown: never let it be committed or reused
                }
            }
        } finally {
            close(connection);
        }
    }

    /** Auto-commit: every store statement its own transaction, with the settings. */
    private static Object eachOnItsOwn(String operation, Connection connection, TxDialect settings,
                                       TxDialect.Restore restore, Body<?> body) throws Transient {
        boolean clean = false;
        try {
            Object result = body.apply(Prologue.each(connection, settings.statementBegin(), settings.statementEnd()));
            clean = true;
            return result;
        } catch (SQLException e) {
            if (SqlStates.of(e).retriedByTheStore() && endBlock(connection, settings, e)) {
                clean = true;
                throw new Transient(e);
            }
            clean = endBlock(connection, settings, e);
            throw failure(operation, e);
        } catch (Throwable t) {
            clean = endBlock(connection, settings, t);
            throw t;
        } finally {
            if (clean) {
                restore(connection, false, restore);
            } else {
                abort(connection);
            }
        }
    }

    /** Ends the transaction block a failed statement left open (a ROLLBACK with none open is a warning only). */
    private static boolean endBlock(Connection connection, TxDialect settings, Throwable failure) {
        if (settings.statementEnd().isEmpty()) {
            return true;
        }
        try (java.sql.Statement statement = connection.createStatement()) {
            statement.execute("ROLLBACK");
            return true;
        } catch (SQLException e) {
            failure.addSuppressed(e);
            return false;
        }
    }

    private static StoreException failure(String operation, SQLException e) {
        return new StoreException(operation, e);
    }

    /** Rolls back; false (with the failure recorded on {@code failure}) if even that failed. */
    private static boolean rollback(Connection connection, Throwable failure) {
        try {
            connection.rollback();
            return true;
        } catch (SQLException e) {
            failure.addSuppressed(e);
            return false;
        }
    }

    /** Closes the physical connection at once: the database rolls back what is open; a pool discards it. */
    private static void abort(Connection connection) {
        try {
            connection.abort(Runnable::run);
        } catch (SQLException | RuntimeException ignored) {
            // closing follows; a connection that cannot even be aborted is broken, which rolls back too
        }
    }

    private static void restore(Connection connection, boolean autoCommit, TxDialect.Restore restore) {
        try {
            if (autoCommit) {
                connection.setAutoCommit(true); // the transaction is over: nothing is committed by this
            }
            restore.run();
        } catch (SQLException ignored) {
            // the connection is closed next; a pool resets it
        }
    }

    private static void close(Connection connection) {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // nothing is open any more
        }
    }

    /** Maps one row of a result set. */
    @FunctionalInterface
    public interface Row<T> {
        T map(ResultSet row) throws SQLException;
    }

    /** Runs an INSERT, UPDATE or DELETE with bound parameters; returns the update count. */
    public static int update(Connection connection, String sql, Object... params) throws SQLException {
        Prologue.Wrap wrap = Prologue.take(connection);
        try (PreparedStatement statement = connection.prepareStatement(wrap.before() + sql + wrap.after())) {
            bind(statement, params);
            if (wrap.isEmpty()) {
                return statement.executeUpdate();
            }
            if (skip(statement, wrap)) {
                throw new SQLException("expected an update count, got rows: " + sql);
            }
            return statement.getUpdateCount();
        }
    }

    /**
     * Runs {@code sqls}, statements with their parameters in order ({@code params} in one array for all of them),
     * in one round trip; returns their update counts. Only where {@link TxDialect#multiStatement()}, unless
     * {@code sqls} holds one statement. A statement that returns rows, or more results than statements given, throw
     * {@link IllegalArgumentException}.
     */
    public static int[] updates(Connection connection, List<String> sqls, Object... params) throws SQLException {
        Prologue.Wrap wrap = Prologue.take(connection);
        try (PreparedStatement statement = connection.prepareStatement(wrap.before() + String.join("; ", sqls)
                + wrap.after())) {
            bind(statement, params);
            boolean rows = skip(statement, wrap);
            int[] counts = new int[sqls.size()];
            for (int i = 0; i < counts.length; i++) {
                if (i > 0) {
                    rows = statement.getMoreResults();
                }
                if (rows || statement.getUpdateCount() < 0) {
                    throw new IllegalArgumentException("statement " + (i + 1) + " returned rows or no update count: "
                            + sqls.get(i));
                }
                counts[i] = statement.getUpdateCount();
            }
            for (int i = Prologue.Wrap.statements(wrap.after()); i > 0; i--) {
                statement.getMoreResults();
            }
            if (statement.getMoreResults() || statement.getUpdateCount() >= 0) {
                throw new IllegalArgumentException("more results than the " + sqls.size() + " statement(s) given: "
                        + String.join("; ", sqls));
            }
            return counts;
        }
    }

    /** Runs a query (or an UPDATE that returns rows) with bound parameters. */
    public static <T> List<T> query(Connection connection, String sql, Row<T> row, Object... params)
            throws SQLException {
        Prologue.Wrap wrap = Prologue.take(connection);
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
            return rows;
        }
    }

    /** Executes, skips the results of what was sent before the statement; returns whether its result is rows. */
    private static boolean skip(PreparedStatement statement, Prologue.Wrap wrap) throws SQLException {
        boolean rows = statement.execute();
        for (int i = Prologue.Wrap.statements(wrap.before()); i > 0; i--) {
            rows = statement.getMoreResults();
        }
        return rows;
    }

    /** 0 rows: the race was lost (a normal outcome). 1: done. More: a bug, since every such update names a key. */
    public static boolean oneRow(int count, String operation) {
        if (count > 1) {
            throw new IllegalStateException(operation + " changed " + count + " rows, expected 0 or 1: a bug");
        }
        return count == 1;
    }

    public static Instant instant(ResultSet row, String column) throws SQLException {
        OffsetDateTime value = row.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    private static void bind(PreparedStatement statement, Object[] params) throws SQLException {
        for (int i = 0; i < params.length; i++) {
            Object param = params[i];
            if (param instanceof Instant instant) {
                statement.setObject(i + 1, OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
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
