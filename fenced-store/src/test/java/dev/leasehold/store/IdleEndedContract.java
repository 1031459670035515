package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.leasehold.store.claims.BatchClaim;
import dev.leasehold.store.claims.BatchClaims;
import dev.leasehold.store.claims.BatchState;
import dev.leasehold.store.outbox.IdempotencyKey;
import dev.leasehold.store.outbox.Outbox;
import dev.leasehold.store.outbox.OutboxIntent;
import dev.leasehold.store.outbox.OutboxRelay;
import dev.leasehold.store.outbox.OutboxState;
import dev.leasehold.store.slots.SlotRuns;
import dev.leasehold.testkit.PlainDataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 41, item 7 ({@code 25P03}): PostgreSQL's {@code idle_in_transaction_session_timeout} ending a transaction the
 * store owns is a retryable failure that kept nothing, never an unknown commit outcome; in the caller's transaction
 * ({@link FenceGate#check}) the caller gets the error, retryable, and the store claims no outcome of a transaction it
 * does not own.
 *
 * <p>Timeline of each store call: the pool hands out connections with auto-commit off (as many pools do), so the
 * store's transaction ends with {@code commit()}; the process pauses before that commit (the stand-in: the commit
 * waits until the server has ended the session, which the test sees in {@code pg_stat_activity}); the server ends the
 * transaction after the store's idle bound; the commit is sent on the dead session and reads the server's 25P03. The
 * frozen work inside a gate write is {@code FrozenHolderContract}'s.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
abstract class IdleEndedContract {

    /** The store's idle bound here: the server ends a transaction idle this long. */
    private static final Duration IDLE = Duration.ofMillis(300);

    private DataSource database;

    private StoreConfig config;
    private PausedBeforeCommit paused;

    /** A fresh PostgreSQL database (directly or through a pooler), whose sessions have no idle bound of their own. */
    protected abstract DataSource freshDatabase();

    @BeforeAll
    void install() throws SQLException {
        database = freshDatabase();
        FencedSchema.install(database, StoreConfig.defaults());
        try (Connection c = database.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE idle_notes (note VARCHAR(40) NOT NULL)");
        }
    }

    @BeforeEach
    void clean() throws SQLException {
        try (Connection c = database.getConnection();
                Statement s = c.createStatement()) {
            s.execute("TRUNCATE idle_notes, leasehold_fence, leasehold_batches, leasehold_slot_runs, leasehold_outbox");
        }
        config = StoreConfig.defaults().withIdleInTransactionTimeout(IDLE);
        paused = new PausedBeforeCommit(database);
    }

    @Test
    void theGatesCallsEndedIdleBeforeTheirCommitKeepNothingAndAreRetryable() throws SQLException {
        FenceGate gate = new FenceGate(paused, config);
        endedIdle(() -> gate.advance("r", 1));
        assertThat(new FenceGate(database).highestToken("r")).isEmpty();

        new FenceGate(database).advance("r", 1);
        endedIdle(() -> gate.write("r", 1, tx -> insert(tx, "write")));
        endedIdle(() -> gate.call("r", 1, tx -> insert(tx, "call")));
        endedIdle(() -> gate.update("r", 1, "INSERT INTO idle_notes (note) VALUES (?)", "update"));
        assertThat(notes()).as("nothing of the writes was kept").isZero();
    }

    /**
     * A work that made the gate mark its transaction ({@code getMetaData}: the gate then checks, before the commit,
     * that the transaction is still the one it checked in) and then idled past the bound: the check before the commit
     * reads the server's 25P03, and nothing was kept.
     */
    @Test
    void aMarkedWorkThatIdledPastTheBoundKeepsNothingAndIsRetryable() throws SQLException {
        new FenceGate(database).advance("r", 1);
        FenceGate gate = new FenceGate(database, config);
        Throwable failure = catchThrowable(() -> gate.call("r", 1, tx -> {
            tx.getMetaData(); // the gate marks its transaction before it hands this out
            insert(tx, "marked");
            // the stand-in for a pause inside the work: nothing is sent until the server ended the session
            PausedBeforeCommit.untilEnded(database, PausedBeforeCommit.pid(tx));
            return null;
        }));
        assertThat(failure)
                .isInstanceOfSatisfying(
                        StoreException.class, e -> assertThat(e.retryable()).isTrue())
                .isNotInstanceOf(CommitOutcomeUnknownException.class)
                .hasMessageContaining("idleInTransactionTimeout");
        assertThat(notes()).isZero();
    }

    @Test
    void theClaimsEndedIdleBeforeTheirCommitKeepNothingAndAreRetryable() {
        BatchClaims direct = new BatchClaims(database);
        BatchClaims claims = new BatchClaims(paused, config);
        direct.enqueue("b1", "p1");
        endedIdle(() -> claims.enqueue("b2", "p2"));
        assertThat(direct.state("b2")).isEmpty();

        endedIdle(() -> claims.claimNext("w", Duration.ofMinutes(1)));
        endedIdle(() -> claims.claimUpTo("w", Duration.ofMinutes(1), 5));
        assertThat(direct.state("b1")).get().extracting(BatchState::attempts).isEqualTo(0);

        BatchClaim claim = direct.claimNext("w", Duration.ofMinutes(1)).orElseThrow();
        endedIdle(() -> claims.finish(claim, "done"));
        endedIdle(() -> claims.finishAll(List.of(claim), "done"));
        endedIdle(() -> claims.renew(claim, Duration.ofMinutes(5)));
        assertThat(direct.state("b1")).get().satisfies(b -> {
            assertThat(b.status()).isEqualTo("processing");
            assertThat(b.leaseUntil()).isEqualTo(claim.leaseUntil());
        });
    }

    @Test
    void theSlotsAndTheOutboxEndedIdleBeforeTheirCommitKeepNothingAndAreRetryable() {
        Instant slot = Instant.parse("2026-12-07T03:00:00Z");
        SlotRuns slots = new SlotRuns(paused, config);
        endedIdle(() -> slots.tryClaim("report", slot, "a", Duration.ofMinutes(1)));
        assertThat(new SlotRuns(database).state("report", slot)).isEmpty();

        new FenceGate(database).advance("billing", 1);
        IdempotencyKey key = IdempotencyKey.of("billing", "c1");
        new Outbox(database).record("billing", 1, OutboxIntent.of(key, "crm", "charge"));
        OutboxRelay relay =
                new OutboxRelay(paused, "relay-1", config, dev.leasehold.store.outbox.RelayConfig.defaults());
        endedIdle(relay::claimNext);
        assertThat(new Outbox(database).state(key))
                .get()
                .extracting(OutboxState::attempts)
                .isEqualTo(0);
    }

    /**
     * The caller's own transaction, ended by the server's idle timeout (the caller's setting: the store sets none in a
     * transaction it does not own) before {@link FenceGate#check}: the caller gets a retryable {@link StoreException}
     * that tells it to roll back and run its transaction again, never an unknown commit outcome; the store commits
     * nothing and retries nothing.
     */
    @Test
    void aCheckInTheCallersTransactionThatTheServerEndedTellsTheCallerToRunItAgain() throws SQLException {
        new FenceGate(database).advance("r", 1);
        FenceGate gate = new FenceGate(database, config);
        try (Connection tx = database.getConnection()) {
            tx.setAutoCommit(false);
            try (Statement s = tx.createStatement()) {
                s.execute("SET LOCAL idle_in_transaction_session_timeout = " + IDLE.toMillis());
            }
            insert(tx, "before the check");
            PausedBeforeCommit.untilEnded(database, PausedBeforeCommit.pid(tx));

            Throwable failure = catchThrowable(() -> gate.check(tx, "r", 1));

            assertThat(failure)
                    .isInstanceOfSatisfying(
                            StoreException.class, e -> assertThat(e.retryable()).isTrue())
                    .isNotInstanceOf(CommitOutcomeUnknownException.class)
                    .hasMessageContaining("in your transaction")
                    .hasMessageContaining("roll your transaction back and run it again");
            assertThat(((StoreException) failure).sqlException().getSQLState()).isEqualTo("25P03");
        }
        assertThat(notes()).isZero();
    }

    /** {@code call} ended idle: a retryable StoreException that kept nothing and names the store's idle bound. */
    private void endedIdle(ThrowingCallable call) {
        Throwable failure = catchThrowable(call);
        assertThat(failure)
                .as("a store call whose transaction the server ended while it idled before its commit")
                .isInstanceOfSatisfying(
                        StoreException.class, e -> assertThat(e.retryable()).isTrue())
                .isNotInstanceOf(CommitOutcomeUnknownException.class)
                .hasMessageContaining("idleInTransactionTimeout")
                .hasMessageContaining("nothing of it was kept");
        assertThat(paused.commitsPaused()).as("the call reached its commit").isPositive();
        paused.reset();
    }

    private static int insert(Connection tx, String note) throws SQLException {
        try (PreparedStatement s = tx.prepareStatement("INSERT INTO idle_notes (note) VALUES (?)")) {
            s.setString(1, note);
            return s.executeUpdate();
        }
    }

    private int notes() throws SQLException {
        try (Connection c = database.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM idle_notes")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /**
     * Connections with auto-commit off whose {@code commit()} first waits until the server has ended the session: the
     * stand-in for a process paused between its last statement and its commit.
     */
    static final class PausedBeforeCommit extends PlainDataSource {
        private final DataSource target;
        private int paused;

        PausedBeforeCommit(DataSource target) {
            this.target = target;
        }

        synchronized int commitsPaused() {
            return paused;
        }

        synchronized void reset() {
            paused = 0;
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection real = target.getConnection();
            real.setAutoCommit(false);
            return (Connection) Proxy.newProxyInstance(
                    Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        if (method.getName().equals("commit")) {
                            synchronized (this) {
                                paused++;
                            }
                            // read inside the transaction: a pooler in transaction mode may have moved the session
                            untilEnded(target, pid(real));
                        }
                        try {
                            return method.invoke(real, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }

        static int pid(Connection c) throws SQLException {
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
                rs.next();
                return rs.getInt(1);
            }
        }

        /**
         * Returns once the server process {@code pid} is gone (the server ended its session), watching from a
         * connection of its own every few milliseconds: an observation, not an order imposed by time.
         */
        static void untilEnded(DataSource ds, int pid) throws SQLException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            try (Connection watcher = ds.getConnection();
                    PreparedStatement s = watcher.prepareStatement("SELECT 1 FROM pg_stat_activity WHERE pid = ?")) {
                s.setInt(1, pid);
                while (true) {
                    try (ResultSet rs = s.executeQuery()) {
                        if (!rs.next()) {
                            return;
                        }
                    }
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("the server did not end session " + pid + " within 30 s");
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                }
            }
        }
    }
}
