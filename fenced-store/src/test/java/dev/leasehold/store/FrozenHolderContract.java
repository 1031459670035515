package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.store.testing.TestThreads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A process frozen inside a gate transaction does not block a new leader's {@link FenceGate#advance} for longer than
 * {@link StoreConfig#idleInTransactionTimeout()}: the database ends the frozen holder's transaction, the advance gets
 * the mark's row lock, and nothing the frozen holder wrote is kept.
 *
 * <p>Found in the {@code partitioned-billing} scenario on PostgreSQL: inst-1 (a child JVM) was stopped with
 * {@code kill -STOP} between its gate write's check and its commit, holding the mark row of {@code customers-6};
 * inst-2's advance of that partition failed with a lock timeout (SQLState 55P03) again and again, for as long as the
 * pause lasted.
 *
 * <p>The stand-in for the frozen process: the holder's work inserts a row, then blocks on a latch in another thread
 * of this JVM. The JVM keeps the connection open and sends nothing on it, so the server sees what it sees of a
 * stopped process: a session idle in transaction that holds the mark's lock. (It is not the same as far as the
 * operating system is concerned, which answers TCP for a stopped process too; the database cannot tell either way.)
 * The new leader's lock timeout is set far above the idle bound, so one advance either waits the frozen holder out
 * (fixed) or fails with a lock timeout (the defect).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
abstract class FrozenHolderContract {

    /** The holder's bound: the server ends its transaction once it idled this long. */
    private static final Duration IDLE = Duration.ofSeconds(1);
    /** The new leader's lock wait: far above {@link #IDLE}, so that load on the machine cannot fail the test. */
    private static final Duration PATIENT = Duration.ofSeconds(30);

    private static final String TABLE = "frozen_writes";

    @RegisterExtension
    final TestThreads threads = new TestThreads();

    /** A database with the store's schema installed, whose sessions have no idle timeout of their own. */
    protected abstract DataSource database();

    @BeforeEach
    void schema() throws SQLException {
        FencedSchema.install(database(), StoreConfig.defaults());
        try (Connection c = database().getConnection();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + TABLE);
            s.execute("CREATE TABLE " + TABLE + " (who VARCHAR(40) NOT NULL)");
            s.execute("DELETE FROM leasehold_fence WHERE resource = 'customers-6'");
        }
    }

    @Test
    void aHolderFrozenInsideItsGateTransactionDoesNotBlockTheNewLeadersAdvanceBeyondTheIdleBound() throws Exception {
        FenceGate old = new FenceGate(database(), StoreConfig.defaults().withIdleInTransactionTimeout(IDLE));
        FenceGate successor = new FenceGate(database(), StoreConfig.defaults().withLockTimeout(PATIENT));
        old.advance("customers-6", 1);
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch thaw = new CountDownLatch(1);
        Future<?> frozen = threads.fixed(1).submit(() -> {
            old.write("customers-6", 1, tx -> {
                insert(tx, "frozen holder");
                inside.countDown();
                // the stand-in for kill -STOP: nothing is sent on the connection until the test thaws it
                frozenUntil(thaw);
            });
            return null;
        });
        assertThat(inside.await(30, TimeUnit.SECONDS))
                .as("the holder's work ran")
                .isTrue();

        successor.advance("customers-6", 2); // the defect: a lock timeout after PATIENT, the holder still frozen
        successor.write("customers-6", 2, tx -> insert(tx, "new leader"));

        thaw.countDown();
        ExecutionException thawed = org.junit.jupiter.api.Assertions.assertThrows(
                ExecutionException.class, () -> frozen.get(30, TimeUnit.SECONDS));
        assertThat(thawed.getCause())
                .isInstanceOfSatisfying(
                        StoreException.class, e -> assertThat(e.retryable()).isTrue())
                .isNotInstanceOf(CommitOutcomeUnknownException.class)
                .hasMessageContaining("fenced write to 'customers-6' with token 1")
                .hasMessageContaining("idleInTransactionTimeout");
        assertThat(writers()).containsExactly("new leader");
        assertThat(successor.highestToken("customers-6")).hasValue(2);
    }

    /**
     * A work that keeps sending statements is not idle: open twice as long as the bound, it commits and everything it
     * wrote is kept (on MariaDB the transaction pings its session before the commit, and finds it alive).
     */
    @Test
    void aWorkBusyForLongerThanTheIdleBoundCommits() throws SQLException {
        FenceGate bounded = new FenceGate(database(), StoreConfig.defaults().withIdleInTransactionTimeout(IDLE));
        bounded.advance("customers-6", 1);
        long until = System.nanoTime() + 2 * IDLE.toNanos();
        int written = bounded.call("customers-6", 1, tx -> {
            int n = 0;
            do {
                insert(tx, "busy " + n++);
                pause(IDLE.dividedBy(10)); // stands for the work's own processing between statements
            } while (System.nanoTime() < until);
            return n;
        });
        assertThat(written).isGreaterThan(2);
        assertThat(writers()).hasSize(written).allMatch(who -> who.startsWith("busy "));
    }

    private static void pause(Duration pause) {
        try {
            Thread.sleep(pause.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during the work's pause", e);
        }
    }

    /** Only the store's own transactions get the bound, sent with their first statement; zero sends none. */
    @Test
    void theStoresTransactionsCarryTheIdleBoundAndZeroLeavesTheServersOwn() {
        FenceGate bounded = new FenceGate(database(), StoreConfig.defaults().withIdleInTransactionTimeout(IDLE));
        FenceGate unbounded =
                new FenceGate(database(), StoreConfig.defaults().withIdleInTransactionTimeout(Duration.ZERO));
        assertThat(bounded.call("customers-6", 1, this::idleBound)).isEqualTo(idleBoundOf(IDLE));
        assertThat(unbounded.call("customers-6", 1, this::idleBound)).isEqualTo(idleBoundOf(Duration.ZERO));
    }

    /** The query that reads the session's idle bound inside a transaction (PostgreSQL's by default). */
    protected String idleBoundQuery() {
        return "SHOW idle_in_transaction_session_timeout";
    }

    /** How {@link #idleBoundQuery()} reads {@code bound} (zero: a server with no bound of its own). */
    protected String idleBoundOf(Duration bound) {
        return bound.isZero() ? "0" : bound.toSeconds() + "s";
    }

    private String idleBound(Connection tx) throws SQLException {
        try (Statement s = tx.createStatement();
                ResultSet rs = s.executeQuery(idleBoundQuery())) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void frozenUntil(CountDownLatch thaw) {
        try {
            thaw.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("the test ended while the holder was frozen", e);
        }
    }

    private static void insert(Connection tx, String who) throws SQLException {
        try (PreparedStatement s = tx.prepareStatement("INSERT INTO " + TABLE + " (who) VALUES (?)")) {
            s.setString(1, who);
            s.executeUpdate();
        }
    }

    private java.util.List<String> writers() throws SQLException {
        java.util.List<String> who = new java.util.ArrayList<>();
        try (Connection c = database().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT who FROM " + TABLE + " ORDER BY who")) {
            while (rs.next()) {
                who.add(rs.getString(1));
            }
        }
        return who;
    }
}
