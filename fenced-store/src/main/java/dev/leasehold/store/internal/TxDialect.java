package dev.leasehold.store.internal;

import dev.leasehold.store.Database;
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
 *   <li>PostgreSQL: {@code SET TRANSACTION ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = n}, sent in the
 *       same round trip as the transaction's first statement. Both end with the transaction: nothing to restore. A
 *       statement on its own (auto-commit) travels as {@code BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL
 *       lock_timeout = n; statement; COMMIT}: still one round trip, its locks held no longer than in
 *       auto-commit.</li>
 *   <li>H2 has no per-transaction form of either: the connection's isolation and the session's {@code LOCK_TIMEOUT}
 *       are set before the transaction and restored after it, only where they differ.</li>
 *   <li>MariaDB and MySQL: the same, with the session's {@code innodb_lock_wait_timeout}, which counts whole
 *       seconds: the lock timeout is rounded up to the next second (at least 1). (A per-transaction
 *       {@code SET TRANSACTION ISOLATION LEVEL} would need a round trip of its own anyway: the drivers send one
 *       statement per round trip unless {@code allowMultiQueries} is set.)</li>
 * </ul>
 * Immutable and thread-safe.
 */
public final class TxDialect {

    /** Undoes {@link #enter}. */
    @FunctionalInterface
    public interface Restore {
        void run() throws SQLException;
    }

    private static final Restore NOTHING = () -> {};

    private final Database database;
    private final long lockTimeoutMillis;
    private final String prologue;
    private final String begin;
    private final String end;

    public TxDialect(Database database, long lockTimeoutMillis) {
        this.database = database;
        this.lockTimeoutMillis = lockTimeoutMillis;
        this.prologue = database == Database.POSTGRESQL
                ? "SET TRANSACTION ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = " + lockTimeoutMillis + "; "
                : "";
        this.begin = database == Database.POSTGRESQL
                ? "BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = " + lockTimeoutMillis + "; "
                : "";
        this.end = database == Database.POSTGRESQL ? "; COMMIT" : "";
    }

    /**
     * For a statement run on a connection in auto-commit mode: SQL to send before it (its own transaction block, so
     * that it gets the settings without a round trip of its own), ending in "; ", or "" if none.
     */
    public String statementBegin() {
        return begin;
    }

    /** What ends {@link #statementBegin()}'s transaction, starting with "; ", or "". */
    public String statementEnd() {
        return end;
    }

    public long lockTimeoutMillis() {
        return lockTimeoutMillis;
    }

    /** SQL to send before the transaction's first statement, ending in "; ", or "" if none. */
    public String prologue() {
        return prologue;
    }

    /** How many statements (and so results) {@link #prologue()} holds. */
    public int prologueStatements() {
        return prologue.isEmpty() ? 0 : 2;
    }

    /** Whether several statements can travel in one round trip ("a; b" in one PreparedStatement). */
    public boolean multiStatement() {
        return database == Database.POSTGRESQL;
    }

    /** Applies what cannot ride with the transaction (H2's session settings); call before it starts. */
    public Restore enter(Connection connection) throws SQLException {
        if (database == Database.POSTGRESQL) {
            return NOTHING;
        }
        String timeoutVariable = database == Database.H2 ? "LOCK_TIMEOUT()" : "@@SESSION.innodb_lock_wait_timeout";
        String setTimeout = database == Database.H2 ? "SET LOCK_TIMEOUT " : "SET SESSION innodb_lock_wait_timeout = ";
        long wanted = database == Database.H2 ? lockTimeoutMillis : Math.max(1, (lockTimeoutMillis + 999) / 1000);
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
     * The fence check as one statement, where the database has one (PostgreSQL): inserts the resource's mark or
     * raises it to the token if the token is at least the mark; 1 row = passed, 0 = a higher mark exists. Parameters:
     * resource, token. Race-free under READ COMMITTED (a waiting writer re-checks the newest mark).
     */
    /** SQLState of {@link #fenceAssert}'s failure: a division by zero, caught by the store and read as "refused". */
    public static final String REFUSED_STATE = "22012";

    /**
     * The fence check as a statement that FAILS when the token is refused (SQLState {@link #REFUSED_STATE}), where
     * the database can send several statements at once: sent in one round trip with the caller's statement and the
     * COMMIT, a refusal aborts the transaction block before either runs. Parameters: resource, token.
     */
    public Optional<String> fenceAssert(Tables tables) {
        return fenceUpsert(tables)
                .map(upsert -> "WITH passed AS (" + upsert + " RETURNING 1)" + " SELECT 1 / COUNT(*) FROM passed");
    }

    public Optional<String> fenceUpsert(Tables tables) {
        if (database != Database.POSTGRESQL) {
            return Optional.empty();
        }
        return Optional.of("INSERT INTO " + tables.fence() + " AS f (resource, token, updated_at) VALUES (?, ?, now())"
                + " ON CONFLICT (resource) DO UPDATE SET token = EXCLUDED.token, updated_at = EXCLUDED.updated_at"
                + " WHERE f.token <= EXCLUDED.token");
    }
}
