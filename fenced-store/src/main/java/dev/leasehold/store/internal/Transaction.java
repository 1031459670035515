package dev.leasehold.store.internal;

import dev.leasehold.store.CommitOutcomeUnknownException;
import dev.leasehold.store.StoreException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Predicate;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * One attempt at a store transaction, as {@link Jdbc} describes it: settings, auto-commit, the store's statements,
 * the caller's work on a {@link GuardedConnection}, commit; rollback on any Throwable; the connection restored, or
 * aborted if its state is unknown, and always closed. Stateless: every call stands alone.
 */
final class Transaction {

    /** How long the ping before a late commit may take. */
    private static final int PING_SECONDS = 5;

    private Transaction() {}

    /**
     * A serialization failure or deadlock of the store's own statements, or a failure the call's own predicate retries
     * (a claim's lock timeout that SKIP LOCKED cannot avoid): rolled back, may run again.
     */
    static final class Transient extends Exception {
        private static final long serialVersionUID = 1L;
        final transient SQLException sql;

        Transient(SQLException sql) {
            super(null, null, false, false);
            this.sql = sql;
        }
    }

    @SuppressWarnings("unchecked")
    static <T> T once(
            DataSource dataSource,
            Jdbc.OnConnection onConnection,
            Supplier<TxDialect> tx,
            String operation,
            Jdbc.Body<?> store,
            Jdbc.Work<T> work,
            boolean eachOnItsOwn,
            Predicate<SQLException> alsoRetried)
            throws Transient {
        Connection connection;
        try {
            connection = dataSource.getConnection();
        } catch (SQLException e) {
            throw failure(operation, e);
        }
        try {
            TxDialect settings;
            long enteredNanos;
            TxDialect.Restore restore;
            TxDialect.Restore commitAndRestore = null;
            // whether this class turns auto-commit back on once the transaction is over
            boolean autoCommit;
            try {
                onConnection.accept(connection);
                settings = tx.get();
                autoCommit = connection.getAutoCommit();
                if (autoCommit && eachOnItsOwn) {
                    restore = settings.enter(connection, false).restore();
                    return (T) eachOnItsOwn(operation, connection, settings, restore, store, alsoRetried);
                }
                enteredNanos = System.nanoTime();
                TxDialect.Entered entered = settings.enter(connection, autoCommit);
                restore = entered.restore();
                commitAndRestore = entered.commitAndRestore();
                if (entered.began()) {
                    autoCommit = false; // the settings' statement ended auto-commit; their restore turns it back on
                } else if (autoCommit) {
                    connection.setAutoCommit(false);
                }
            } catch (SQLException e) {
                throw failure(operation, e);
            }
            boolean over = false;
            boolean restored = false;
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
                    if (retried(e, alsoRetried) && over) {
                        throw new Transient(e);
                    }
                    throw failure(operation, e);
                } catch (Throwable t) {
                    over = rollback(connection, t);
                    throw t;
                }
                T result;
                Object marked = null;
                boolean lazy = work != null && settings.dmlKeepsTransaction();
                if (work != null && !lazy) {
                    try {
                        marked = identity(connection, settings.markTransaction());
                    } catch (SQLException e) {
                        over = rollback(connection, e);
                        throw failure(operation, e);
                    }
                }
                if (work == null) {
                    result = (T) stored;
                } else {
                    GuardedConnection guarded = new GuardedConnection(
                            connection,
                            settings.ddlCommits(),
                            lazy ? () -> identity(connection, settings.markTransaction()) : null);
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
                    StoreException ended = lazy && !guarded.marked()
                            // plain DML only, never past the guard: only a failure can have ended the transaction
                            ? afterFailure(operation, connection, settings, guarded.failure())
                            : stillOurs(operation, connection, settings, lazy ? guarded.mark() : marked);
                    if (ended != null) {
                        over = rollback(connection, ended);
                        throw ended;
                    }
                }
                StoreException gone = sessionEndedWhileIdle(operation, connection, settings, enteredNanos);
                if (gone != null) {
                    over = rollback(connection, gone);
                    throw gone;
                }
                try {
                    if (commitAndRestore != null) {
                        commitAndRestore.run(); // one statement: the commit and the settings' restore
                        restored = true;
                    } else {
                        connection.commit();
                    }
                    over = true;
                } catch (SQLException e) {
                    over = rollback(connection, e);
                    if (SqlStates.sharedServerStatement(e)) {
                        throw failure(operation, e); // the COMMIT's Parse failed: it never ran
                    }
                    if (SqlStates.of(e) == SqlStates.Kind.IDLE_TIMEOUT) {
                        // the server ended the idle session before it read the COMMIT: everything was rolled back
                        throw failure(operation, e);
                    }
                    throw new CommitOutcomeUnknownException(operation, e);
                }
                return result;
            } finally {
                if (over) {
                    if (!restored) {
                        restore(connection, autoCommit, restore);
                    }
                } else {
                    abort(connection); // still open and its state unknown: never let it be committed or reused
                }
            }
        } finally {
            close(connection);
        }
    }

    /**
     * Auto-commit: every store statement its own transaction, with the settings. A failed statement's block was
     * already rolled back by {@link Prologue#failed}. A connection lost once a statement that may change data was
     * sent is a {@link CommitOutcomeUnknownException} (issue 21, defect 3): that statement commits on its own when it
     * runs, and the server may have run it before the answer was lost, so "nothing kept, retry" would be a guess
     * (a retry of a finish that did commit reports the claim lost; of an enqueue, a duplicate).
     */
    private static Object eachOnItsOwn(
            String operation,
            Connection connection,
            TxDialect settings,
            TxDialect.Restore restore,
            Jdbc.Body<?> body,
            Predicate<SQLException> alsoRetried)
            throws Transient {
        Connection each = Prologue.each(connection, settings.statementBegin(), settings.statementEnd());
        try {
            return body.apply(each);
        } catch (SQLException e) {
            if (retried(e, alsoRetried)) {
                throw new Transient(e); // the failed statement's block was rolled back: it kept nothing
            }
            if (SqlStates.of(e) == SqlStates.Kind.CONNECTION_LOST && Prologue.wrote(each)) {
                throw new CommitOutcomeUnknownException(operation, STATEMENT_ANSWER_LOST, e);
            }
            throw failure(operation, e);
        } finally {
            restore(connection, false, restore);
        }
    }

    /** Whether the store runs its own statements again after {@code e}: {@link SqlStates.Kind#retriedByTheStore()}. */
    private static boolean retried(SQLException e, Predicate<SQLException> alsoRetried) {
        return SqlStates.of(e).retriedByTheStore() || alsoRetried.test(e);
    }

    /**
     * Null if the transaction that took the mark is still the one open; else the refusal: the work's SQL ended it (a
     * procedure that commits, or SQL the guard's text check missed), so the mark's lock may have been released while
     * the work went on. Rolled back by the caller: what the work did after that point is not kept.
     */
    private static StoreException stillOurs(
            String operation, Connection connection, TxDialect settings, Object marked) {
        Object now;
        try {
            now = identity(connection, settings.verifyTransaction());
        } catch (SQLException e) {
            return switch (SqlStates.of(e)) {
                    // the commit was never sent and the session is gone: the server rolled everything back
                case IDLE_TIMEOUT -> failure(operation, e);
                case CONNECTION_LOST -> new StoreException(
                        operation + " failed: the connection was lost before the commit was sent, so nothing was"
                                + " kept (retryable); if the work waited between its statements, the database may"
                                + " have ended the idle transaction (StoreConfig.idleInTransactionTimeout): "
                                + e.getMessage() + " (SQLState " + e.getSQLState() + ")",
                        e,
                        true);
                default -> ended(operation, e);
            };
        }
        return java.util.Objects.equals(marked, now) ? null : ended(operation, null);
    }

    /**
     * Null unless the server may have ended this transaction's session for idling without saying so (MariaDB's
     * {@code idle_transaction_timeout}, {@link TxDialect#silentIdleBoundMillis()}) and did: a transaction open at
     * least that long pings its session before the commit. Then nothing was kept, for certain, where a commit sent on
     * the dead session would only have seen a lost connection, whose outcome is unknown. The ping also restarts the
     * server's idle clock just before the commit.
     */
    private static StoreException sessionEndedWhileIdle(
            String operation, Connection connection, TxDialect settings, long enteredNanos) {
        long bound = settings.silentIdleBoundMillis();
        if (bound == 0 || System.nanoTime() - enteredNanos < bound * 1_000_000L) {
            return null;
        }
        boolean alive;
        try {
            alive = connection.isValid(PING_SECONDS);
        } catch (SQLException | RuntimeException e) {
            alive = true; // a connection that cannot ping (a wrapper): unknown, so the commit says, as before
        }
        return alive
                ? null
                : new StoreException(
                        operation + " failed: the session did not answer a ping before the commit was sent, so"
                                + " nothing was kept (retryable); the transaction was open longer than the database's"
                                + " idle bound, so it most likely ended the idle transaction"
                                + " (StoreConfig.idleInTransactionTimeout: raise it for work that waits between its"
                                + " statements)",
                        null,
                        true);
    }

    /**
     * Null if the unmarked transaction is still whole; else the refusal. A work of plain DML may have caught a failed
     * statement and gone on: a deadlock, serialization failure, lock timeout or lost connection may have rolled the
     * whole transaction back (InnoDB does, for a deadlock) and released the fence's lock, so that what the work did after
     * it ran in a new transaction; on PostgreSQL any failure aborts the transaction ({@link TxDialect#abortedProbe()}).
     */
    private static StoreException afterFailure(
            String operation, Connection connection, TxDialect settings, SQLException failure) {
        if (failure == null) {
            return null;
        }
        if (SqlStates.of(failure).retryable()) {
            return new StoreException(
                    operation + " failed: a statement of the work failed and the work went on, but this failure may"
                            + " have rolled back the whole transaction, fence check included; nothing of the work was"
                            + " kept (retryable): " + failure.getMessage() + " (SQLState " + failure.getSQLState()
                            + ")",
                    failure,
                    true);
        }
        java.util.Optional<String> probe = settings.abortedProbe();
        if (probe.isEmpty()) {
            return null; // the failed statement undid only itself
        }
        try {
            identity(connection, probe.get());
            return null; // the work rolled back to a savepoint of its own after the failure
        } catch (SQLException aborted) {
            aborted.addSuppressed(failure);
            return new StoreException(
                    operation + " failed: a statement of the work failed and the work went on, but the failure"
                            + " aborted the transaction, so nothing of the work was kept (to go on after a failed"
                            + " statement, roll back to a savepoint of the work's own): " + failure.getMessage()
                            + " (SQLState " + failure.getSQLState() + ")",
                    aborted,
                    SqlStates.of(aborted).retryable());
        }
    }

    private static StoreException ended(String operation, SQLException cause) {
        return new StoreException(
                operation + " failed: the work's SQL ended the gate's transaction (a COMMIT or ROLLBACK, DDL that"
                        + " commits by itself, or a procedure that commits), so the mark's lock was released while it"
                        + " went on; what it did after that was rolled back, what it did before may have been"
                        + " committed. Run such SQL outside the fenced work",
                cause,
                false);
    }

    /** Runs {@code sql}; a query's first column, or null. */
    private static Object identity(Connection connection, String sql) throws SQLException {
        try (java.sql.Statement statement = connection.createStatement()) {
            if (!statement.execute(sql)) {
                return null;
            }
            try (java.sql.ResultSet row = statement.getResultSet()) {
                return row.next() ? row.getObject(1) : null;
            }
        }
    }

    /** What was lost when a statement committed on its own lost its answer. */
    static final String STATEMENT_ANSWER_LOST =
            "the connection was lost after a statement that commits on its own (auto-commit) was sent";

    private static StoreException failure(String operation, SQLException e) {
        if (SqlStates.sharedServerStatement(e)) {
            return new StoreException(operation + " failed: " + SqlStates.SET_PREPARE_THRESHOLD, e, false);
        }
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
}
