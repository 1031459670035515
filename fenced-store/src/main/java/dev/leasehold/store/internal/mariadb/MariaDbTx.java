package dev.leasehold.store.internal.mariadb;

import dev.leasehold.store.Database;
import dev.leasehold.store.internal.TxDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * MariaDB's and MySQL's transaction framing, with no read of its own (issue 24): ONE statement before the transaction
 * saves the session's isolation and {@code innodb_lock_wait_timeout} in user variables and sets READ COMMITTED and
 * the store's timeout (whole seconds: the lock timeout rounded up, at least 1), and, when a transaction follows on a
 * connection in auto-commit mode, {@code autocommit = 0}; ONE statement after it sets all of them back and clears the
 * variables. With an idle bound ({@code StoreConfig.idleInTransactionTimeout}, MariaDB only: whole seconds, rounded
 * up, at least 1) the same two SETs save, set and put back {@code idle_transaction_timeout} and, since a non-zero one
 * of them takes precedence over it, {@code idle_write_transaction_timeout} and
 * {@code idle_readonly_transaction_timeout}, all three to the bound. A SET evaluates every
 * value before it assigns any, so the saved values are the ones the pool lent. The
 * drivers send one statement per round trip (unless {@code allowMultiQueries}), so neither can ride with another
 * statement; the read-set-restore before cost three to six round trips, plus the two of the auto-commit switches that
 * these two now carry. The driver reads auto-commit from the server's status flags, so {@code getAutoCommit()} stays
 * true to the session; a pool gets the connection back as it lent it: same isolation, lock wait timeout and
 * auto-commit, the two user variables NULL (which is what an unset user variable reads as). Where the transaction
 * began in the first SET, the SET after it also commits it ({@code autocommit = 1}, assigned first, commits the open
 * transaction; a commit that fails fails the SET before it restores anything, and the store then rolls back and
 * restores): a fenced write sends as many statements as a plain JDBC transaction (issue 24). Immutable and
 * thread-safe.
 */
final class MariaDbTx extends TxDialect {

    private final String isolation;
    /** The idle bound in whole seconds, 0 for none: MariaDB's {@code idle_transaction_timeout}; MySQL has none. */
    private final long idleSeconds;

    MariaDbTx(long lockTimeoutMillis, long idleMillis, Database database) {
        super(lockTimeoutMillis);
        this.isolation = database == Database.MYSQL ? "transaction_isolation" : "tx_isolation";
        this.idleSeconds = database == Database.MARIADB && idleMillis > 0 ? (idleMillis + 999) / 1000 : 0;
    }

    @Override
    public Restore enter(Connection connection) throws SQLException {
        return enter(connection, false).restore();
    }

    @Override
    public Entered enter(Connection connection, boolean begin) throws SQLException {
        long seconds = Math.max(1, (lockTimeoutMillis() + 999) / 1000);
        // all three: a write's or a read-only transaction's own bound, where set, takes precedence over the general one
        String idle = idleSeconds == 0
                ? ""
                : ", @leasehold_idle = @@SESSION.idle_transaction_timeout, @leasehold_idle_write ="
                        + " @@SESSION.idle_write_transaction_timeout, @leasehold_idle_read ="
                        + " @@SESSION.idle_readonly_transaction_timeout, SESSION idle_transaction_timeout = "
                        + idleSeconds + ", SESSION idle_write_transaction_timeout = " + idleSeconds
                        + ", SESSION idle_readonly_transaction_timeout = " + idleSeconds;
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET @leasehold_isolation = @@SESSION." + isolation
                    + ", @leasehold_lock_wait = @@SESSION.innodb_lock_wait_timeout, SESSION " + isolation
                    + " = 'READ-COMMITTED', SESSION innodb_lock_wait_timeout = " + seconds
                    + idle
                    + (begin ? ", autocommit = 0" : ""));
        }
        String back = "SESSION " + isolation + " = @leasehold_isolation, SESSION innodb_lock_wait_timeout ="
                + " @leasehold_lock_wait, @leasehold_isolation = NULL, @leasehold_lock_wait = NULL"
                + (idleSeconds == 0
                        ? ""
                        : ", SESSION idle_transaction_timeout = @leasehold_idle, SESSION idle_write_transaction_timeout"
                                + " = @leasehold_idle_write, SESSION idle_readonly_transaction_timeout ="
                                + " @leasehold_idle_read, @leasehold_idle = NULL, @leasehold_idle_write = NULL,"
                                + " @leasehold_idle_read = NULL");
        Restore restore = () -> run(connection, "SET " + back + (begin ? ", autocommit = 1" : ""));
        // autocommit = 1 first: it commits the open transaction, and a SET stops at its first failing assignment
        Restore commitAndRestore = begin ? () -> run(connection, "SET autocommit = 1, " + back) : null;
        return new Entered(restore, begin, commitAndRestore);
    }

    /**
     * One SET saves the session's {@code innodb_lock_wait_timeout} in a user variable and sets the store's (whole
     * seconds, at least 1); one SET puts it back and clears the variable. A session variable's SET neither commits nor
     * ends the open transaction; the isolation is left as the caller's transaction has it.
     */
    @Override
    public Restore lockTimeoutInCallersTransaction(Connection tx) throws SQLException {
        long seconds = Math.max(1, (lockTimeoutMillis() + 999) / 1000);
        run(
                tx,
                "SET @leasehold_check_lock_wait = @@SESSION.innodb_lock_wait_timeout, SESSION innodb_lock_wait_timeout"
                        + " = " + seconds);
        return () -> run(
                tx,
                "SET SESSION innodb_lock_wait_timeout = @leasehold_check_lock_wait, @leasehold_check_lock_wait = NULL");
    }

    /**
     * MariaDB ends the session of a transaction idle past {@code idle_transaction_timeout} with no error of its own:
     * the client sees a lost connection, as it would if the network failed.
     */
    @Override
    public long silentIdleBoundMillis() {
        return idleSeconds * 1000;
    }

    private static void run(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** Stored functions and triggers may not commit here (error 1422): plain DML keeps the transaction. */
    @Override
    public boolean dmlKeepsTransaction() {
        return true;
    }
}
