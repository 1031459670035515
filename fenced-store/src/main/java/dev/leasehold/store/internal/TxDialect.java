package dev.leasehold.store.internal;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * How a store transaction gets the settings it needs on each database: READ COMMITTED whatever the pool hands out,
 * and the configured lock timeout. (Kept apart from {@link SqlDialect}, which holds the tables' SQL, so that the
 * transaction's rules read in one screen.)
 *
 * <ul>
 *   <li>PostgreSQL: {@code SET TRANSACTION ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = n; SET LOCAL
 *       idle_in_transaction_session_timeout = m} (the last only if an idle bound is configured), sent in the
 *       same round trip as the transaction's first statement. All end with the transaction: nothing to restore. A
 *       statement on its own (auto-commit) travels as {@code BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL
 *       lock_timeout = n; statement; COMMIT}: still one round trip, its locks held no longer than in
 *       auto-commit.</li>
 *   <li>H2 has no per-transaction form of either: the connection's isolation and the session's {@code LOCK_TIMEOUT}
 *       are set before the transaction and restored after it, only where they differ (a session once read right is
 *       not read again).</li>
 *   <li>MariaDB and MySQL: one SET before the transaction saves the session's isolation and
 *       {@code innodb_lock_wait_timeout} (whole seconds: the lock timeout rounded up, at least 1) in user variables,
 *       sets the store's and turns auto-commit off; one SET after it puts all three back (see
 *       {@link #enter(Connection, boolean)}). MariaDB's idle bound ({@code idle_transaction_timeout}) travels in the
 *       same two SETs.</li>
 * </ul>
 * Each database's subclass lives in its package ({@code internal.postgres}, {@code internal.h2},
 * {@code internal.mariadb}). Immutable and thread-safe.
 */
public abstract class TxDialect {

    /** Undoes {@link #enter}. */
    @FunctionalInterface
    public interface Restore {
        void run() throws SQLException;
    }

    /** A {@link Restore} with nothing to undo. */
    protected static final Restore NOTHING = () -> {};

    /** SQLState of {@link #fenceAssert}'s failure: a division by zero, caught by the store and read as "refused". */
    public static final String REFUSED_STATE = "22012";

    private final long lockTimeoutMillis;

    protected TxDialect(long lockTimeoutMillis) {
        this.lockTimeoutMillis = lockTimeoutMillis;
    }

    public long lockTimeoutMillis() {
        return lockTimeoutMillis;
    }

    /**
     * The idle bound, in milliseconds, after which the server ends a transaction's session with no error of its own
     * (the client sees a lost connection); 0 if none is set or the server says why (PostgreSQL's 25P03). A store
     * transaction open at least this long checks that its session is still there before it commits, so that a holder
     * thawed after the bound learns that nothing was kept instead of an unknown commit outcome.
     */
    public long silentIdleBoundMillis() {
        return 0;
    }

    /**
     * For a statement run on a connection in auto-commit mode: SQL to send before it (its own transaction block, so
     * that it gets the settings without a round trip of its own), ending in "; ", or "" if none.
     */
    public String statementBegin() {
        return "";
    }

    /** What ends {@link #statementBegin()}'s transaction, starting with "; ", or "". */
    public String statementEnd() {
        return "";
    }

    /** SQL to send before the transaction's first statement, ending in "; ", or "" if none. */
    public String prologue() {
        return "";
    }

    /** How many statements (and so results) {@link #prologue()} holds. */
    public int prologueStatements() {
        return (int) prologue().chars().filter(c -> c == ';').count();
    }

    /** Whether DDL commits the open transaction by itself (H2, MariaDB, MySQL: yes, the default; PostgreSQL: no). */
    public boolean ddlCommits() {
        return true;
    }

    /**
     * A statement that marks the gate's transaction once the check passed (before the work runs); a query's first
     * column is the transaction's identity. By default a savepoint (MariaDB and MySQL, whose transaction ids need the
     * PROCESS privilege); PostgreSQL and H2 read their transaction id.
     */
    public String markTransaction() {
        return "SAVEPOINT leasehold_fence";
    }

    /**
     * Run just before the commit: fails, or answers other than {@link #markTransaction()} did, if the transaction that
     * took the mark is no longer the one open (the work's SQL committed or rolled it back).
     */
    public String verifyTransaction() {
        return "RELEASE SAVEPOINT leasehold_fence";
    }

    /**
     * Whether plain DML ({@link TransactionControl#plainDml}) can never end the transaction, not even through a
     * function or trigger it fires (PostgreSQL, MariaDB and MySQL: those may not commit). Then the gate marks its transaction
     * ({@link #markTransaction()}) only once a fenced work sends anything else, or reaches past the guard (issue 24):
     * a work of plain DML costs no mark and no verify.
     */
    public boolean dmlKeepsTransaction() {
        return false;
    }

    /**
     * A statement that fails if a failed statement of the work aborted the transaction (PostgreSQL: every failure does,
     * until the work rolls back to a savepoint of its own; the COMMIT of an aborted transaction only rolls it back, and
     * PgJDBC reports no error for it), or empty where a failed statement undoes only itself. Run before the commit of a
     * transaction that was not marked ({@link #dmlKeepsTransaction()}) when a statement of the work failed.
     */
    public Optional<String> abortedProbe() {
        return Optional.empty();
    }

    /** Whether several statements can travel in one round trip ("a; b" in one PreparedStatement). */
    public boolean multiStatement() {
        return false;
    }

    /**
     * For a check inside a transaction the CALLER owns ({@code FenceGate.check}): sets the store's lock timeout for
     * the check's statements and returns how to put the caller's back, to run before the check returns. Never
     * touches the isolation, auto-commit or anything else of the caller's transaction. Run the restore after a failed
     * statement only where a failure does not abort the transaction ({@link #abortedProbe()} empty): on PostgreSQL the
     * caller must roll back, and the rollback ends what {@code SET LOCAL} set.
     */
    public abstract Restore lockTimeoutInCallersTransaction(Connection tx) throws SQLException;

    /** Applies what cannot ride with the transaction (session settings); call before it starts. */
    public abstract Restore enter(Connection connection) throws SQLException;

    /**
     * What {@link #enter(Connection, boolean)} did: how to undo it, and whether it also ended auto-commit.
     *
     * @param commitAndRestore null, or (where {@link #began()}) ONE statement that commits the open transaction and
     *                         undoes the settings, in place of {@code commit()} followed by {@link #restore()}: if it
     *                         fails, the caller rolls back and runs {@link #restore()}
     */
    public record Entered(Restore restore, boolean began, Restore commitAndRestore) {
        public Entered(Restore restore, boolean began) {
            this(restore, began, null);
        }
    }

    /**
     * Like {@link #enter(Connection)}, for a connection that a transaction follows.
     *
     * @param begin the connection is in auto-commit mode and a transaction follows: where the settings travel as a
     *              statement of their own anyway (MariaDB, MySQL), that statement may also set {@code autocommit = 0};
     *              {@link Entered#began()} then says so (the caller leaves auto-commit alone, and the restore turns it
     *              back on in the same statement as the settings)
     */
    public Entered enter(Connection connection, boolean begin) throws SQLException {
        return new Entered(enter(connection), false);
    }

    /**
     * Sets READ COMMITTED on the connection and the session's lock timeout (read with {@code SELECT timeoutVariable},
     * set with {@code setTimeout + value}) to {@code wanted}, each only where it differs; the returned
     * {@link Restore} puts back what was changed.
     */
    protected static Restore enterSession(Connection connection, String timeoutVariable, String setTimeout, long wanted)
            throws SQLException {
        int isolation = connection.getTransactionIsolation();
        if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
            connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
        long lockTimeout;
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT " + timeoutVariable)) {
            row.next();
            lockTimeout = row.getLong(1);
            if (lockTimeout != wanted) {
                statement.execute(setTimeout + wanted);
            }
        }
        if (isolation == Connection.TRANSACTION_READ_COMMITTED && lockTimeout == wanted) {
            return NOTHING;
        }
        return () -> {
            if (lockTimeout != wanted) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute(setTimeout + lockTimeout);
                }
            }
            if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                connection.setTransactionIsolation(isolation);
            }
        };
    }

    /**
     * The shared fence check ({@link SqlDialect#shareMark()}) as a statement that FAILS unless the mark EQUALS the
     * token (SQLState {@link #REFUSED_STATE}), where the database can send several statements at once: sent in one
     * round trip with the caller's statement and the COMMIT, a refusal aborts the transaction block before either
     * runs; a pass share-locks the mark until that COMMIT, so writers of one token do not wait for one another. A mark
     * that is higher means stale; lower (re-based by another gate) means the full path must raise it and record the
     * raise. Parameters: resource, token. Empty where the database cannot.
     */
    public Optional<String> fenceAssert(Tables tables) {
        return Optional.empty();
    }

    /**
     * The fence check as one statement, where the database has one (PostgreSQL): inserts the resource's mark or
     * raises it to the token if the token is at least the mark; 1 row = passed, 0 = a higher mark exists. Parameters:
     * resource, token. Race-free under READ COMMITTED (a waiting writer re-checks the newest mark).
     */
    public Optional<String> fenceUpsert(Tables tables) {
        return Optional.empty();
    }
}
