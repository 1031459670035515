package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.store.testing.TestThreads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 43, section 1: {@link FenceGate#check(Connection, String, long)} inside a transaction the caller owns, on
 * connections of a HikariCP pool, at the caller's isolation. The check's lock lasts until the caller's transaction
 * ends; a stale token is refused and the caller's rollback takes every write of the transaction with it; the
 * connection goes back to the pool as it was lent.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(180)
abstract class CallersTransactionContract {

    private static final String WRITES = "callers_writes";
    private static final String RESOURCE = "invoices-2026-12";

    /** The caller's isolation levels. */
    enum Level {
        READ_COMMITTED(Connection.TRANSACTION_READ_COMMITTED),
        REPEATABLE_READ(Connection.TRANSACTION_REPEATABLE_READ),
        SERIALIZABLE(Connection.TRANSACTION_SERIALIZABLE);

        final int jdbc;

        Level(int jdbc) {
            this.jdbc = jdbc;
        }
    }

    /** A plain data source of the database (lock waits fail after 10 s). */
    protected abstract DataSource dataSource();

    /** How many sessions of this database wait on a lock right now, by the database's own account. */
    protected abstract int sessionsWaitingOnLocks(Connection connection) throws SQLException;

    /** The session's settings the check could change (lock timeout, user variables...), as one string. */
    protected abstract String sessionSettings(Connection connection) throws SQLException;

    /** Sets a lock timeout of the caller's own inside the open transaction on {@code tx}, other than the store's. */
    protected abstract void setCallersLockTimeout(Connection tx) throws SQLException;

    protected String identityType() {
        return "BIGINT GENERATED ALWAYS AS IDENTITY";
    }

    @RegisterExtension
    final TestThreads threads = new TestThreads();

    private HikariDataSource pool;
    /** The old leader's gate: it advanced to 7, so it has seen 7 pass (the shared check). */
    private FenceGate leader;
    /** The new leader's gate, in another process as far as the store can tell. */
    private FenceGate next;

    @BeforeAll
    void startPool() {
        HikariConfig config = new HikariConfig();
        config.setDataSource(dataSource());
        config.setMaximumPoolSize(2);
        config.setPoolName("callers-transaction");
        pool = new HikariDataSource(config);
    }

    @AfterAll
    void closePool() {
        pool.close();
    }

    @BeforeEach
    void cleanSchema() throws SQLException {
        FencedSchema.install(pool);
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + WRITES + " (id " + identityType() + " PRIMARY KEY,"
                    + " note VARCHAR(200))");
            s.execute("DELETE FROM " + WRITES);
            s.execute("DELETE FROM leasehold_fence WHERE resource LIKE 'invoices-%'");
            s.execute("DELETE FROM leasehold_fence_history WHERE resource LIKE 'invoices-%'");
        }
        leader = new FenceGate(pool);
        next = new FenceGate(pool);
        leader.advance(RESOURCE, 7);
    }

    @ParameterizedTest
    @EnumSource(Level.class)
    void theCheckPassesAndTheWritesAroundItCommitAtTheCallersIsolation(Level level) throws Exception {
        FenceGate fresh = new FenceGate(pool); // has seen nothing: the exclusive check
        for (FenceGate gate : List.of(leader, fresh, fresh)) {
            try (Connection tx = begin(level)) {
                insert(tx, "before");
                gate.check(tx, RESOURCE, 7);
                insert(tx, "after");
                assertThat(tx.getTransactionIsolation()).isEqualTo(level.jdbc);
                assertThat(tx.getAutoCommit()).isFalse();
                tx.commit();
            }
        }
        assertThat(notes()).containsExactly("before", "after", "before", "after", "before", "after");

        next.advance(RESOURCE, 8);
        try (Connection tx = begin(level)) {
            assertThatThrownBy(() -> leader.check(tx, RESOURCE, 7))
                    .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highestToken())
                            .isEqualTo(8));
            tx.rollback();
        }
        try (Connection tx = begin(level)) {
            next.check(tx, RESOURCE, 8);
            insert(tx, "new leader");
            tx.commit();
        }
        assertThat(notes()).hasSize(7).endsWith("new leader");
    }

    @Test
    void aNullClosedAutoCommitOrReadOnlyConnectionIsRefusedBeforeAnythingIsSent() throws Exception {
        String untouched = "invoices-untouched";
        assertThatThrownBy(() -> leader.check(null, untouched, 7))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("null")
                .hasMessageContaining("DataSourceUtils.getConnection");
        try (Connection c = pool.getConnection()) {
            assertThat(c.getAutoCommit()).isTrue();
            assertThatThrownBy(() -> leader.check(c, untouched, 7))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("auto-commit")
                    .hasMessageContaining("setAutoCommit(false)");
        }
        Connection closed = pool.getConnection();
        closed.close();
        assertThatThrownBy(() -> leader.check(closed, untouched, 7))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        try (Connection c = pool.getConnection()) {
            c.setReadOnly(true);
            c.setAutoCommit(false);
            if (c.isReadOnly()) {
                assertThatThrownBy(() -> leader.check(c, untouched, 7))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("read-only");
            } else {
                // H2's driver ignores the hint (its transactions can write): the check runs as in any transaction
                leader.check(c, untouched, 7);
            }
            c.rollback();
        }
        assertThat(leader.highestToken(untouched)).isEmpty();
        assertThat(leader.history(untouched, 10)).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Level.class)
    void aStaleCheckLeavesTheTransactionToTheCallerWhoseRollbackTakesEveryWrite(Level level) throws Exception {
        next.advance(RESOURCE, 8);
        try (Connection tx = begin(level)) {
            String lent = sessionSettings(tx);
            insert(tx, "before the check");
            assertThatThrownBy(() -> leader.check(tx, RESOURCE, 7)).isInstanceOf(StaleTokenException.class);
            assertThat(sessionSettings(tx))
                    .as("the caller's settings, put back")
                    .isEqualTo(lent);
            insert(tx, "after the check"); // the transaction is still the caller's to end
            tx.rollback();
        }
        assertThat(notes()).isEmpty();
        assertThat(leader.highestToken(RESOURCE)).hasValue(8);
    }

    @Test
    void theCallersOwnLockTimeoutIsPutBackBeforeTheCheckReturns() throws Exception {
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            setCallersLockTimeout(tx);
            String callers = sessionSettings(tx);
            leader.check(tx, RESOURCE, 7);
            assertThat(sessionSettings(tx)).isEqualTo(callers);
            new FenceGate(dataSource()).check(tx, RESOURCE, 7); // the exclusive path too
            assertThat(sessionSettings(tx)).isEqualTo(callers);
            tx.rollback();
        }
    }

    /**
     * The old leader's transaction passed the check and pauses (a latch would do; here the test simply holds the
     * transaction open) while it holds the mark: the new leader's advance waits for it, returns only after it ends, and
     * the old leader's next transaction is refused.
     */
    @Test
    void anAdvanceWaitsForATransactionThatPassedTheCheckAndTheOldLeadersNextOneIsRefused() throws Exception {
        Future<?> advance;
        try (Connection old = begin(Level.READ_COMMITTED)) {
            leader.check(old, RESOURCE, 7);
            insert(old, "old leader, before its pause");
            advance = threads.fixed(1).submit(() -> next.advance(RESOURCE, 8, "new leader"));
            awaitLockWaiters(1);
            assertThat(advance)
                    .as("the advance returned while a transaction that passed 7 could commit")
                    .isNotDone();
            insert(old, "old leader, after its pause");
            old.commit();
        }
        advance.get(20, TimeUnit.SECONDS);
        try (Connection again = begin(Level.READ_COMMITTED)) {
            assertThatThrownBy(() -> leader.check(again, RESOURCE, 7)).isInstanceOf(StaleTokenException.class);
            again.rollback();
        }
        assertThat(notes()).containsExactly("old leader, before its pause", "old leader, after its pause");
        assertThat(leader.highestToken(RESOURCE)).hasValue(8);
    }

    /**
     * A transaction whose snapshot was taken before a raise of the mark never passes the lower token: it is refused
     * as stale, or fails with a retryable serialization error; never passes.
     */
    @ParameterizedTest
    @EnumSource(
            value = Level.class,
            names = {"REPEATABLE_READ", "SERIALIZABLE"})
    void aTransactionWhoseSnapshotPredatesARaiseNeverPassesTheLowerToken(Level level) throws Exception {
        for (FenceGate gate : List.of(leader, new FenceGate(pool))) {
            resetMarkTo7();
            try (Connection tx = begin(level)) {
                insert(tx, "stale"); // the snapshot is taken (on MariaDB at SERIALIZABLE a read would lock the mark)
                next.advance(RESOURCE, 8);
                Throwable refused = catchThrowable(() -> gate.check(tx, RESOURCE, 7));
                tx.rollback();
                assertThat(refused)
                        .as("the check of 7 after a raise to 8 passed")
                        .isNotNull();
                if (!(refused instanceof StaleTokenException)) {
                    assertThat(refused).isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.retryable())
                            .as("%s", e)
                            .isTrue());
                }
            }
        }
        assertThat(notes()).isEmpty();
    }

    @Test
    void threeHundredCheckedTransactionsLeaveThePooledConnectionsAsLent() throws Exception {
        List<String> lent = poolState();
        for (int i = 0; i < 300; i++) { // 100 per isolation level; the starter's contract makes 1,000
            Level level = Level.values()[i % 3];
            try (Connection tx = begin(level)) {
                if (i % 10 == 9) {
                    FenceGate gate = new FenceGate(pool); // the exclusive path, with its restore
                    gate.check(tx, RESOURCE, 7);
                } else {
                    leader.check(tx, RESOURCE, 7);
                }
                if (i % 100 == 0) {
                    insert(tx, "t" + i);
                }
                tx.commit();
            }
        }
        next.advance(RESOURCE, 8);
        for (int i = 0; i < 20; i++) {
            try (Connection tx = begin(Level.values()[i % 3])) {
                assertThatThrownBy(() -> leader.check(tx, RESOURCE, 7)).isInstanceOf(StaleTokenException.class);
                tx.rollback();
            }
        }
        assertThat(poolState()).containsExactlyInAnyOrderElementsOf(lent);
        assertThat(notes()).hasSize(3);
    }

    /** Both pooled connections' state, taken while both are out. */
    private List<String> poolState() throws SQLException {
        List<String> state = new ArrayList<>();
        try (Connection a = pool.getConnection();
                Connection b = pool.getConnection()) {
            for (Connection c : List.of(a, b)) {
                state.add(sessionSettings(c) + " isolation=" + c.getTransactionIsolation() + " autoCommit="
                        + c.getAutoCommit() + " readOnly=" + c.isReadOnly());
            }
        }
        return state;
    }

    private void resetMarkTo7() throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute("UPDATE leasehold_fence SET token = 7 WHERE resource = '" + RESOURCE + "'");
        }
    }

    private Connection begin(Level level) throws SQLException {
        Connection tx = pool.getConnection();
        tx.setAutoCommit(false);
        tx.setTransactionIsolation(level.jdbc);
        return tx;
    }

    private static void insert(Connection tx, String note) throws SQLException {
        try (PreparedStatement p = tx.prepareStatement("INSERT INTO " + WRITES + " (note) VALUES (?)")) {
            p.setString(1, note);
            p.executeUpdate();
        }
    }

    private List<String> notes() throws SQLException {
        List<String> notes = new ArrayList<>();
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT note FROM " + WRITES + " ORDER BY id")) {
            while (rs.next()) {
                notes.add(rs.getString(1));
            }
        }
        return notes;
    }

    /** Waits until the database reports {@code n} sessions waiting on a lock (there is no event for it). */
    private void awaitLockWaiters(int n) throws SQLException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        try (Connection c = dataSource().getConnection()) {
            while (sessionsWaitingOnLocks(c) < n) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no session waited on the lock within 20 s");
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
        }
    }
}
