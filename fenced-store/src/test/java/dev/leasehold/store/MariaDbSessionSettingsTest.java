package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.testing.MariaDb;
import dev.leasehold.store.testing.WithMariaDb;
import dev.leasehold.testkit.PlainDataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 24 on MariaDB: the store sets what it needs (READ COMMITTED, its lock wait timeout, auto-commit off) in ONE
 * statement before a transaction and puts the session back in ONE statement after it, with no read of its own; a
 * pool gets the connection back exactly as it lent it. A pool of one connection, lent again and again, shows both
 * (skipped unless LEASEHOLD_TEST_MARIADB_URL is set).
 */
@WithMariaDb
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbSessionSettingsTest {

    private Connection physical;
    private DataSource one;
    private DataSource database;

    @BeforeAll
    void connect() throws SQLException {
        database = MariaDb.freshDatabase("session_settings");
        FencedSchema.install(database);
        physical = database.getConnection();
        try (Statement s = physical.createStatement()) {
            s.execute("CREATE TABLE entries (id BIGINT AUTO_INCREMENT PRIMARY KEY, note VARCHAR(200))");
            // what this pool lends: not what the store needs
            s.execute("SET SESSION tx_isolation = 'REPEATABLE-READ', SESSION innodb_lock_wait_timeout = 17,"
                    + " SESSION idle_transaction_timeout = 77, SESSION idle_write_transaction_timeout = 78,"
                    + " SESSION idle_readonly_transaction_timeout = 79");
        }
        one = new PlainDataSource() {
            @Override
            public Connection getConnection() {
                return (Connection) Proxy.newProxyInstance(
                        Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                            if (method.getName().equals("close")) {
                                return null; // back to the pool of one
                            }
                            try {
                                return method.invoke(physical, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
            }
        };
    }

    @AfterAll
    void close() throws SQLException {
        if (physical != null) {
            physical.close();
        }
    }

    /** The session as the pool lent it: isolation, lock wait timeout, auto-commit, and the store's variables. */
    private List<Object> session() throws SQLException {
        try (Statement s = physical.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@SESSION.tx_isolation, @@SESSION.innodb_lock_wait_timeout,"
                        + " @@SESSION.autocommit, @leasehold_isolation IS NULL, @leasehold_lock_wait IS NULL,"
                        + " @@in_transaction, @@SESSION.idle_transaction_timeout, @@SESSION.idle_write_transaction_timeout,"
                        + " @@SESSION.idle_readonly_transaction_timeout, @leasehold_idle IS NULL AND @leasehold_idle_write"
                        + " IS NULL AND @leasehold_idle_read IS NULL")) {
            rs.next();
            return List.of(
                    rs.getString(1),
                    rs.getLong(2),
                    rs.getLong(3),
                    rs.getBoolean(4),
                    rs.getBoolean(5),
                    rs.getLong(6),
                    rs.getLong(7),
                    rs.getLong(8),
                    rs.getLong(9),
                    rs.getBoolean(10),
                    physical.getAutoCommit());
        }
    }

    /** Statements this session has sent to the server so far (each is one round trip), not counting this read. */
    private long statements() throws SQLException {
        try (Statement s = physical.createStatement();
                ResultSet rs = s.executeQuery("SHOW SESSION STATUS LIKE 'Questions'")) {
            rs.next();
            return rs.getLong(2);
        }
    }

    @Test
    void everyWayOfWritingGivesTheConnectionBackAsItWasLent() throws SQLException {
        try (Statement s = physical.createStatement()) {
            s.execute("DELETE FROM entries");
        }
        List<Object> lent = session();
        assertThat(lent).containsExactly("REPEATABLE-READ", 17L, 1L, true, true, 0L, 77L, 78L, 79L, true, true);
        FenceGate gate = new FenceGate(one);

        gate.advance("ledger", 5);
        assertThat(session()).isEqualTo(lent);
        gate.write("ledger", 5, tx -> insert(tx, "write"));
        assertThat(session()).isEqualTo(lent);
        assertThat(gate.update("ledger", 5, "INSERT INTO entries (note) VALUES (?)", "update"))
                .isEqualTo(1);
        assertThat(session()).isEqualTo(lent);
        assertThatThrownBy(() -> gate.write("ledger", 5, tx -> {
                    insert(tx, "rolled back");
                    throw new IllegalStateException("the work fails");
                }))
                .hasMessage("the work fails");
        assertThat(session()).isEqualTo(lent);
        gate.advance("ledger", 6);
        assertThatThrownBy(() -> gate.write("ledger", 5, tx -> insert(tx, "stale")))
                .isInstanceOf(StaleTokenException.class);
        assertThat(session()).isEqualTo(lent);
        assertThat(gate.highestToken("ledger")).hasValue(6);
        assertThat(session()).isEqualTo(lent);
        assertThat(notes()).containsExactly("write", "update");
        assertThat(session()).isEqualTo(lent);
    }

    /**
     * The same insert as a plain JDBC transaction ({@code setAutoCommit(false)}, INSERT, COMMIT,
     * {@code setAutoCommit(true)}: four statements) and through the gate with a token it has seen pass: the settings
     * and auto-commit in one SET, the shared check, the INSERT, and one SET that commits ({@code autocommit = 1}) and
     * puts the settings back: four too, for {@code write} and for {@code update} alike. Before issue 24 the gate also
     * read, set and restored the isolation and the lock wait timeout one statement at a time (ten statements), then
     * sent a separate COMMIT and marked its transaction around the work with a savepoint (seven); plain DML cannot end
     * a MariaDB transaction, so the mark is now taken only before anything else (see the next test).
     */
    @Test
    void aFencedWriteOrUpdateSendsAsManyStatementsAsThePlainTransaction() throws SQLException {
        FenceGate gate = new FenceGate(one);
        gate.advance("counted", 3);

        long before = statements();
        physical.setAutoCommit(false);
        insert(physical, "plain");
        physical.commit();
        physical.setAutoCommit(true);
        long plain = statements() - before - 1; // less the SHOW of the first statements()

        before = statements();
        gate.write("counted", 3, tx -> insert(tx, "fenced"));
        long fenced = statements() - before - 1;

        before = statements();
        gate.update("counted", 3, "INSERT INTO entries (note) VALUES (?)", "one statement");
        long update = statements() - before - 1;

        before = statements();
        gate.write("counted", 3, tx -> {
            insert(tx, "fenced, then read");
            try (Statement s = tx.createStatement();
                    ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM entries")) {
                rs.next();
            }
        });
        long read = statements() - before - 1;

        assertThat(plain).isEqualTo(4);
        assertThat(fenced).as("gate.write").isEqualTo(plain);
        assertThat(update).as("gate.update").isEqualTo(plain);
        // a result set's getStatement() is the guarded statement: a read needs no savepoint, only its own statement
        assertThat(read).as("gate.write with a query").isEqualTo(plain + 1);
    }

    /**
     * A procedure that commits, called from a fenced work, is caught before the gate commits, as before issue 24: the
     * CALL is not plain DML, so the gate marks its transaction just before it and finds the mark gone at the end.
     */
    @Test
    void aProcedureThatCommitsIsCaughtAndWhatFollowedItIsRolledBack() throws SQLException {
        try (Statement s = physical.createStatement()) {
            s.execute("DELETE FROM entries");
            s.execute("DROP PROCEDURE IF EXISTS commits");
            s.execute("CREATE PROCEDURE commits() BEGIN COMMIT; END");
        }
        List<Object> lent = session();
        FenceGate gate = new FenceGate(one);
        gate.advance("called", 4);
        assertThatThrownBy(() -> gate.write("called", 4, tx -> {
                    insert(tx, "before the call");
                    try (Statement s = tx.createStatement()) {
                        s.execute("CALL commits()");
                    }
                    insert(tx, "after the call");
                }))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("the work's SQL ended the gate's transaction");
        assertThat(notes()).doesNotContain("after the call");
        assertThat(session()).isEqualTo(lent);
    }

    /**
     * InnoDB rolls back the whole transaction of a deadlock's victim, the fence check's shared lock included, and the
     * work's next statement starts a new transaction without it. A work of plain DML is not marked (issue 24), so a
     * work that swallowed the deadlock and went on had that new transaction committed as a fenced write, its first
     * half lost and its second half written outside the fence. Now nothing is kept, and the error is retryable.
     */
    @Test
    void aDeadlockTheWorkSwallowedKeepsNothingAndIsRetryable() throws Exception {
        try (Statement s = physical.createStatement()) {
            s.execute("DELETE FROM entries");
            s.execute("CREATE TABLE IF NOT EXISTS pair (name CHAR(1) PRIMARY KEY, n INT NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS ballast (id INT PRIMARY KEY)");
            s.execute("DELETE FROM pair");
            s.execute("DELETE FROM ballast");
            s.execute("INSERT INTO pair VALUES ('a', 0), ('b', 0)");
        }
        FenceGate gate = new FenceGate(one);
        gate.advance("deadlocked", 8);
        CountDownLatch otherHoldsB = new CountDownLatch(1);
        CountDownLatch otherMayWaitForA = new CountDownLatch(1);
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            Future<?> other = executor.submit(() -> {
                try (Connection c = database.getConnection();
                        Statement s = c.createStatement()) {
                    c.setAutoCommit(false);
                    for (int i = 0; i < 20; i++) { // the heavier transaction: InnoDB chooses the work as the victim
                        s.execute("INSERT INTO ballast VALUES (" + i + ")");
                    }
                    s.execute("UPDATE pair SET n = n + 1 WHERE name = 'b'");
                    otherHoldsB.countDown();
                    await(otherMayWaitForA);
                    s.execute("UPDATE pair SET n = n + 1 WHERE name = 'a'"); // waits for the work
                    c.rollback();
                }
                return null;
            });
            await(otherHoldsB);
            SQLException[] swallowed = new SQLException[1];
            assertThatThrownBy(() -> gate.write("deadlocked", 8, tx -> {
                        insert(tx, "before the deadlock");
                        bump(tx, "a");
                        otherMayWaitForA.countDown();
                        try (Connection observer = database.getConnection()) {
                            while (MariaDb.waitingOnLocks(observer) < 1 && !other.isDone()) {
                                // polls the server: there is no event for "another session waits on my lock"
                            }
                        }
                        try {
                            bump(tx, "b");
                        } catch (SQLException deadlock) {
                            swallowed[0] = deadlock; // a work that logs the failure and goes on
                        }
                        insert(tx, "after the deadlock");
                    }))
                    .isInstanceOfSatisfying(
                            StoreException.class, e -> assertThat(e.retryable()).isTrue())
                    .hasMessageContaining("nothing of the work was kept");
            assertThat(swallowed[0] == null ? 0 : swallowed[0].getErrorCode())
                    .as("InnoDB chose the work as the deadlock's victim (error 1213)")
                    .isEqualTo(1213);
            other.get(30, TimeUnit.SECONDS);
        } finally {
            executor.shutdownNow();
        }
        assertThat(notes()).isEmpty();
    }

    private static void bump(Connection tx, String name) throws SQLException {
        try (PreparedStatement p = tx.prepareStatement("UPDATE pair SET n = n + 1 WHERE name = ?")) {
            p.setString(1, name);
            p.executeUpdate();
        }
    }

    private static void await(CountDownLatch latch) throws InterruptedException {
        if (!latch.await(30, TimeUnit.SECONDS)) {
            throw new AssertionError("latch not released within 30 s");
        }
    }

    private static void insert(Connection tx, String note) throws SQLException {
        try (PreparedStatement p = tx.prepareStatement("INSERT INTO entries (note) VALUES (?)")) {
            p.setString(1, note);
            p.executeUpdate();
        }
    }

    private List<String> notes() throws SQLException {
        List<String> notes = new java.util.ArrayList<>();
        try (Statement s = physical.createStatement();
                ResultSet rs = s.executeQuery("SELECT note FROM entries ORDER BY id")) {
            while (rs.next()) {
                notes.add(rs.getString(1));
            }
        }
        return notes;
    }
}
