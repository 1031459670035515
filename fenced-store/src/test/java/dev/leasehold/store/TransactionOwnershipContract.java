package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.store.claims.BatchClaim;
import dev.leasehold.store.claims.BatchClaims;
import dev.leasehold.store.slots.SlotClaim;
import dev.leasehold.store.slots.SlotRuns;
import dev.leasehold.store.testing.CountingDataSource;
import dev.leasehold.store.testing.TestThreads;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The store owns its transaction, whatever the pool, the isolation level and the work do (issue 10, section 1).
 * Every test runs with a plain DataSource and with HikariCP, with connections handed out at READ COMMITTED,
 * REPEATABLE READ and SERIALIZABLE, on every database (the subclasses). Each reproduces a defect found in review;
 * they failed on the code before the fix (see the commit that added them).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
abstract class TransactionOwnershipContract {

    static final String WRITES = "tx_writes";

    enum Pool {
        PLAIN,
        HIKARI
    }

    enum Isolation {
        READ_COMMITTED(Connection.TRANSACTION_READ_COMMITTED),
        REPEATABLE_READ(Connection.TRANSACTION_REPEATABLE_READ),
        SERIALIZABLE(Connection.TRANSACTION_SERIALIZABLE);

        final int jdbc;

        Isolation(int jdbc) {
            this.jdbc = jdbc;
        }
    }

    /** How the connections reach the store. */
    record Setup(Pool pool, Isolation isolation) {
        @Override
        public String toString() {
            return (pool == Pool.PLAIN ? "plain DataSource" : "HikariCP") + " at " + isolation;
        }
    }

    /** Every pool at every isolation: for the reproductions of the defects. */
    static Stream<Setup> setups() {
        return Stream.of(Pool.values())
                .flatMap(pool -> Stream.of(Isolation.values()).map(i -> new Setup(pool, i)));
    }

    /** Two of them, for the features that do not depend on the isolation the pool hands out. */
    static Stream<Setup> fewSetups() {
        return Stream.of(
                new Setup(Pool.PLAIN, Isolation.READ_COMMITTED), new Setup(Pool.HIKARI, Isolation.REPEATABLE_READ));
    }

    /** The database at its defaults (READ COMMITTED), for setting up and checking. */
    protected abstract DataSource database();

    /** A plain DataSource whose connections come at {@code isolation}. */
    protected abstract DataSource plainAt(Isolation isolation);

    /** How many sessions wait on a lock right now, by the database's own account. */
    protected abstract int sessionsWaitingOnLocks(Connection connection) throws SQLException;

    /** The type of an identity column in this database's DDL. */
    protected String identityType() {
        return "BIGINT GENERATED ALWAYS AS IDENTITY";
    }

    private final Map<Isolation, HikariDataSource> pools = new EnumMap<>(Isolation.class);

    @RegisterExtension
    final TestThreads threads = new TestThreads();

    @BeforeEach
    void cleanTables() throws SQLException {
        FencedSchema.install(database());
        try (Connection c = database().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + WRITES + " (id " + identityType() + " PRIMARY KEY,"
                    + " resource VARCHAR(200) NOT NULL, token BIGINT NOT NULL, note VARCHAR(200))");
            for (String table : List.of(WRITES, "leasehold_fence", "leasehold_batches", "leasehold_slot_runs")) {
                s.execute("DELETE FROM " + table);
            }
        }
    }

    @AfterAll
    void closePools() {
        pools.values().forEach(HikariDataSource::close);
    }

    /** The setup's data source; checks that its connections really come at the setup's isolation. */
    DataSource dataSource(Setup setup) throws SQLException {
        DataSource ds = setup.pool() == Pool.PLAIN
                ? plainAt(setup.isolation())
                : pools.computeIfAbsent(setup.isolation(), this::hikari);
        try (Connection c = ds.getConnection()) {
            assertThat(c.getTransactionIsolation())
                    .as("isolation handed out by %s", setup)
                    .isEqualTo(setup.isolation().jdbc);
        }
        return ds;
    }

    /**
     * Whether a session setting made on a connection stays with it (HikariCP's {@code transactionIsolation} is one). Not
     * behind a transaction-mode pooler, where it would stay on whichever server connection ran it: there the pool is
     * given {@link #plainAt} instead.
     */
    protected boolean sessionSettingsStay() {
        return true;
    }

    private HikariDataSource hikari(Isolation isolation) {
        HikariConfig config = new HikariConfig();
        if (sessionSettingsStay()) {
            config.setDataSource(database());
            config.setTransactionIsolation("TRANSACTION_" + isolation.name());
        } else {
            config.setDataSource(plainAt(isolation));
        }
        config.setMaximumPoolSize(12);
        config.setMinimumIdle(0);
        config.setPoolName("tx-" + isolation.name().toLowerCase());
        return new HikariDataSource(config);
    }

    private ExecutorService threads(int n) {
        return threads.fixed(n);
    }

    static void insert(Connection tx, String resource, long token, String note) throws SQLException {
        try (PreparedStatement p =
                tx.prepareStatement("INSERT INTO " + WRITES + " (resource, token, note)" + " VALUES (?, ?, ?)")) {
            p.setString(1, resource);
            p.setLong(2, token);
            p.setString(3, note);
            p.executeUpdate();
        }
    }

    List<String> notes() throws SQLException {
        List<String> notes = new ArrayList<>();
        try (Connection c = database().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT note FROM " + WRITES + " ORDER BY id")) {
            while (rs.next()) {
                notes.add(rs.getString(1));
            }
        }
        return notes;
    }

    /** Throws a checked exception the compiler does not see, as Kotlin, Groovy or Lombok's @SneakyThrows do. */
    @SuppressWarnings("unchecked")
    static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
        throw (E) t;
    }

    /** A refused call on the gate's connection, by name. */
    private record Misuse(String method, SqlCall call) {
        @Override
        public String toString() {
            return method;
        }
    }

    @FunctionalInterface
    private interface SqlCall {
        void on(Connection tx) throws SQLException;
    }

    private static final List<Misuse> MISUSES = List.of(
            new Misuse("commit", Connection::commit),
            new Misuse("rollback()", Connection::rollback),
            new Misuse("setAutoCommit", tx -> tx.setAutoCommit(true)),
            new Misuse("close", Connection::close),
            new Misuse("abort", tx -> tx.abort(Runnable::run)),
            new Misuse(
                    "setTransactionIsolation", tx -> tx.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE)),
            new Misuse("setReadOnly", tx -> tx.setReadOnly(true)));

    // ---- defect 1: a checked exception from the work ---------------------------------------------------------

    /** Reproduction: the work inserts a row, then throws IOException("disk full"); the row was kept. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("setups")
    void aCheckedExceptionFromTheWorkRollsBackTheWriteAndIsRethrownUnchanged(Setup setup) throws SQLException {
        FenceGate gate = new FenceGate(dataSource(setup));
        gate.advance("disk", 5);
        IOException diskFull = new IOException("disk full");

        assertThatThrownBy(() -> gate.write("disk", 6, tx -> {
                    insert(tx, "disk", 6, "partial write");
                    throw sneaky(diskFull);
                }))
                .isSameAs(diskFull);

        assertThat(notes()).as("rows kept").isEmpty();
        assertThat(new FenceGate(database()).highestToken("disk"))
                .as("the mark")
                .hasValue(5);
    }

    // ---- defect 2: the work breaks the fence through its raw connection ---------------------------------------

    /** Each refused method throws an SQLException naming it; nothing of the work is kept, thrown or swallowed. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("setups")
    void theWorkCannotEndOrReconfigureTheGatesTransaction(Setup setup) throws SQLException {
        FenceGate gate = new FenceGate(dataSource(setup));
        gate.advance("r", 5);
        for (Misuse misuse : MISUSES) {
            assertThatThrownBy(() -> gate.write("r", 6, tx -> {
                        insert(tx, "r", 6, "before " + misuse);
                        misuse.call().on(tx);
                        insert(tx, "r", 6, "after " + misuse);
                    }))
                    .as(misuse.method())
                    .isInstanceOfSatisfying(StoreException.class, e -> assertThat((Throwable) e.sqlException())
                            .hasMessageContaining(misuse.method())
                            .hasMessageContaining("refused"));

            assertThatThrownBy(() -> gate.write("r", 6, tx -> {
                        insert(tx, "r", 6, "before swallowed " + misuse);
                        try {
                            misuse.call().on(tx);
                        } catch (SQLException swallowed) {
                            // a work that ignores the refusal and goes on
                        }
                        insert(tx, "r", 6, "after swallowed " + misuse);
                    }))
                    .as("swallowed " + misuse.method())
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining(misuse.method())
                    .hasMessageContaining("nothing of the work was kept");

            assertThat(notes()).as("rows kept after %s", misuse).isEmpty();
        }
        assertThat(new FenceGate(database()).highestToken("r")).hasValue(5);
        gate.write("r", 6, tx -> insert(tx, "r", 6, "the connections still work"));
        assertThat(notes()).containsExactly("the connections still work");
    }

    /** Rolling back to a savepoint is the work's own business, and allowed; keeping the connection is not. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("fewSetups")
    void theWorkMayRollBackToItsOwnSavepoint(Setup setup) throws SQLException {
        FenceGate gate = new FenceGate(dataSource(setup));
        Connection[] kept = new Connection[1];
        gate.write("r", 1, tx -> {
            insert(tx, "r", 1, "kept");
            java.sql.Savepoint savepoint = tx.setSavepoint();
            insert(tx, "r", 1, "undone");
            tx.rollback(savepoint);
            kept[0] = tx;
        });
        assertThat(notes()).containsExactly("kept");
        // a work that kept the connection cannot reach it once the transaction is over (the pool lent it on)
        assertThatThrownBy(() -> insert(kept[0], "r", 1, "late"))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("this fenced transaction is over");
        assertThat(notes()).containsExactly("kept");
    }

    /**
     * Reproduction: A (token 5) passes the check; its work calls {@code tx.rollback()}, releasing the fence row, and
     * carries on; B's {@code advance(10)} commits; A inserts and returns: A's row landed after B's fence.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("setups")
    void aWorkThatRollsBackCannotLetAStaleWriteLandAfterANewerFence(Setup setup) throws Exception {
        DataSource ds = dataSource(setup);
        FenceGate gate = new FenceGate(ds);
        gate.advance("ledger", 1);
        CountDownLatch rolledBack = new CountDownLatch(1);
        CountDownLatch carryOn = new CountDownLatch(1);
        ExecutorService pool = threads(2);
        Future<?> a = pool.submit(() -> gate.write("ledger", 5, tx -> {
            try {
                tx.rollback();
            } catch (SQLException refused) {
                // the work ignores it and goes on
            }
            rolledBack.countDown();
            await(carryOn);
            insert(tx, "ledger", 5, "A, stale");
        }));
        assertThat(rolledBack.await(20, TimeUnit.SECONDS)).isTrue();
        Future<?> b = pool.submit(() -> gate.advance("ledger", 10));
        awaitWaiterOrDone(b); // B either waits for A's lock (fixed) or got through (the defect)
        carryOn.countDown();

        b.get(20, TimeUnit.SECONDS);
        assertThatThrownBy(() -> a.get(20, TimeUnit.SECONDS)).hasCauseInstanceOf(StoreException.class);
        assertThat(notes()).as("rows kept").isEmpty();
        assertThat(new FenceGate(database()).highestToken("ledger")).hasValue(10);
    }

    /** Reproduction: the work switches auto-commit on, writes, then throws: the rows were kept. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("setups")
    void autoCommitSwitchedOnByTheWorkThenAFailureKeepsNothing(Setup setup) throws SQLException {
        FenceGate gate = new FenceGate(dataSource(setup));
        gate.advance("r", 5);
        IllegalStateException boom = new IllegalStateException("the work failed after writing");
        assertThatThrownBy(() -> gate.write("r", 6, tx -> {
                    insert(tx, "r", 6, "first");
                    try {
                        tx.setAutoCommit(true);
                    } catch (SQLException refused) {
                        // ignored
                    }
                    insert(tx, "r", 6, "second");
                    throw boom;
                }))
                .isSameAs(boom);
        assertThat(notes()).as("rows kept").isEmpty();
        assertThat(new FenceGate(database()).highestToken("r")).hasValue(5);
    }

    // ---- defect 3: isolation neither set nor checked ----------------------------------------------------------

    /**
     * Reproduction: the older writer (5) holds the mark in its transaction; the newer (10) queues behind it. At
     * REPEATABLE READ or SERIALIZABLE on PostgreSQL, the newer one failed with 40001 when the older committed.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("setups")
    void aNewerWriterQueuedBehindAnOlderOnePassesAtAnyIsolation(Setup setup) throws Exception {
        FenceGate gate = new FenceGate(dataSource(setup));
        gate.advance("ledger", 1);
        CountDownLatch olderInside = new CountDownLatch(1);
        CountDownLatch releaseOlder = new CountDownLatch(1);
        ExecutorService pool = threads(2);
        Future<?> older = pool.submit(() -> gate.write("ledger", 5, tx -> {
            insert(tx, "ledger", 5, "older");
            olderInside.countDown();
            await(releaseOlder);
        }));
        assertThat(olderInside.await(20, TimeUnit.SECONDS)).isTrue();
        Future<?> newer = pool.submit(() -> gate.write("ledger", 10, tx -> insert(tx, "ledger", 10, "newer")));
        awaitWaiterOrDone(newer);
        releaseOlder.countDown();

        older.get(20, TimeUnit.SECONDS);
        newer.get(20, TimeUnit.SECONDS);
        assertThat(notes()).containsExactly("older", "newer");
        assertThat(new FenceGate(database()).highestToken("ledger")).hasValue(10);
    }

    /**
     * Reproduction: on a resource's first use, the older writer (5) has inserted the mark and holds it; the current
     * leader (7) waits, then finds the row. At REPEATABLE READ, H2 told it {@code StaleTokenException(offered 7,
     * highest -1)} (its snapshot could not see the row) and PostgreSQL failed with 40001.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("setups")
    void aCurrentLeaderRacingAnOlderOneOnAFreshResourceIsNeverToldItIsStale(Setup setup) throws Exception {
        FenceGate gate = new FenceGate(dataSource(setup));
        CountDownLatch olderInside = new CountDownLatch(1);
        CountDownLatch releaseOlder = new CountDownLatch(1);
        ExecutorService pool = threads(2);
        Future<?> older = pool.submit(() -> gate.write("fresh", 5, tx -> {
            insert(tx, "fresh", 5, "older");
            olderInside.countDown();
            await(releaseOlder);
        }));
        assertThat(olderInside.await(20, TimeUnit.SECONDS)).isTrue();
        Future<?> current = pool.submit(() -> gate.write("fresh", 7, tx -> insert(tx, "fresh", 7, "current")));
        awaitWaiterOrDone(current);
        releaseOlder.countDown();

        older.get(20, TimeUnit.SECONDS);
        current.get(20, TimeUnit.SECONDS);
        assertThat(notes()).containsExactly("older", "current");
        assertThat(new FenceGate(database()).highestToken("fresh")).hasValue(7);
    }

    /**
     * Reproduction: 8 threads x 25 first-use writes with equal tokens (each thread its own resources, all sharing
     * none): at REPEATABLE READ and SERIALIZABLE on PostgreSQL some failed with 40001. Here 4 threads race on the
     * same 20 fresh resources with equal tokens: every write passes.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("setups")
    void equalTokensRacingOnFreshResourcesAllPass(Setup setup) throws Exception {
        FenceGate gate = new FenceGate(dataSource(setup));
        ExecutorService pool = threads(4);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> writers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            int writer = w;
            writers.add(pool.submit(() -> {
                await(go);
                for (int r = 0; r < 20; r++) {
                    gate.write("fresh-" + r, 3, tx -> insert(tx, "fresh", 3, "w" + writer));
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> writer : writers) {
            writer.get(60, TimeUnit.SECONDS);
        }
        assertThat(notes()).hasSize(80);
    }

    /**
     * Reproduction: at REPEATABLE READ and SERIALIZABLE on PostgreSQL, {@code claimNext} and {@code finish} threw
     * 40001 (a batch then sat in processing until its lease ended and ran twice) and {@code tryClaim} losers threw
     * instead of getting empty. Here: 4 workers drain 60 batches, 10 racers take each of 5 slots.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("setups")
    void claimsFinishesAndSlotRacesNeverFailAtAnyIsolation(Setup setup) throws Exception {
        DataSource ds = dataSource(setup);
        BatchClaims batches = new BatchClaims(ds);
        SlotRuns slots = new SlotRuns(ds);
        for (int i = 0; i < 60; i++) {
            batches.enqueue(String.format("batch-%02d", i), "payload " + i);
        }
        Map<String, AtomicInteger> finished = new ConcurrentHashMap<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        ExecutorService pool = threads(10);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            String owner = "worker-" + w;
            workers.add(pool.submit(() -> {
                await(go);
                try {
                    Optional<BatchClaim> claim;
                    while ((claim = batches.claimNext(owner, Duration.ofMinutes(5))).isPresent()) {
                        if (batches.finish(claim.get(), "done by " + owner)) {
                            finished.computeIfAbsent(claim.get().batchId(), k -> new AtomicInteger())
                                    .incrementAndGet();
                        }
                    }
                } catch (Throwable t) {
                    failures.add(t);
                }
            }));
        }
        go.countDown();
        for (Future<?> worker : workers) {
            worker.get(60, TimeUnit.SECONDS);
        }
        assertThat(failures).isEmpty();
        assertThat(finished).hasSize(60);
        assertThat(finished.values())
                .allSatisfy(count -> assertThat(count.get()).isEqualTo(1));

        Instant base = Instant.parse("2026-11-30T00:00:00Z");
        for (int s = 0; s < 5; s++) {
            Instant slot = base.plusSeconds(60L * s);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Optional<SlotClaim>>> racers = new ArrayList<>();
            for (int r = 0; r < 10; r++) {
                String runner = "replica-" + r;
                racers.add(pool.submit(() -> {
                    await(start);
                    return slots.tryClaim("report", slot, runner, Duration.ofSeconds(30));
                }));
            }
            start.countDown();
            int winners = 0;
            for (Future<Optional<SlotClaim>> racer : racers) {
                winners += racer.get(30, TimeUnit.SECONDS).isPresent() ? 1 : 0;
            }
            assertThat(winners).as("winners of slot %s", slot).isEqualTo(1);
        }
    }

    // ---- bounded waits (section 2) ----------------------------------------------------------------------------

    /** How long a statement on {@code connection} waits for a lock, in milliseconds, as the database says. */
    protected abstract long lockTimeoutMillis(Connection connection) throws SQLException;

    /**
     * A paused leader holds the mark inside its transaction; the new leader's advance waits at most the store's lock
     * timeout, then fails with a retryable StoreException that says so; once the old transaction ends it passes.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("fewSetups")
    void aLockWaitLongerThanTheLockTimeoutIsARetryableStoreExceptionThatSaysSo(Setup setup) throws Exception {
        DataSource ds = dataSource(setup);
        FenceGate gate = new FenceGate(ds);
        FenceGate impatient = new FenceGate(ds, StoreConfig.defaults().withLockTimeout(Duration.ofMillis(200)));
        gate.advance("ledger", 1);
        CountDownLatch pausedInside = new CountDownLatch(1);
        CountDownLatch wake = new CountDownLatch(1);
        Future<?> paused = threads(1)
                .submit(() -> gate.write("ledger", 1, tx -> {
                    pausedInside.countDown();
                    await(wake); // the old leader's pause, inside its transaction
                }));
        assertThat(pausedInside.await(20, TimeUnit.SECONDS)).isTrue();

        assertThatThrownBy(() -> impatient.advance("ledger", 2)).isInstanceOfSatisfying(StoreException.class, e -> {
            assertThat(e.retryable()).isTrue();
            assertThat(e).hasMessageContaining("advancing the fence of 'ledger' to 2 failed: a lock timeout");
        });
        wake.countDown();
        paused.get(20, TimeUnit.SECONDS);
        impatient.advance("ledger", 2);
        assertThat(new FenceGate(database()).highestToken("ledger")).hasValue(2);
    }

    /**
     * The same database through connections whose own lock timeout (10 minutes) outlasts any test: a lock wait that
     * ends sooner was ended by the store's lock timeout.
     */
    protected abstract DataSource patient();

    /**
     * The store's lock timeout bounds a statement on its own (finish, auto-commit) and a transaction (advance) alike,
     * whatever the data source's own setting.
     */
    @org.junit.jupiter.api.Test
    void theStoresLockTimeoutOverridesTheDataSourcesOwn() throws SQLException {
        StoreConfig impatient = StoreConfig.defaults().withLockTimeout(Duration.ofMillis(200));
        BatchClaims batches = new BatchClaims(patient(), impatient);
        FenceGate gate = new FenceGate(patient(), impatient);
        batches.enqueue("held", "p");
        BatchClaim claim = batches.claimNext("w", Duration.ofMinutes(1)).orElseThrow();
        gate.advance("held", 1);
        try (Connection holder = database().getConnection();
                Statement s = holder.createStatement()) {
            holder.setAutoCommit(false);
            s.executeQuery("SELECT id FROM leasehold_batches WHERE id = 'held' FOR UPDATE")
                    .close();
            s.executeQuery("SELECT token FROM leasehold_fence WHERE resource = 'held' FOR UPDATE")
                    .close();

            assertThatThrownBy(() -> batches.finish(claim, "done"))
                    .isInstanceOfSatisfying(
                            StoreException.class, e -> assertThat(e.retryable()).isTrue())
                    .hasMessageContaining("a lock timeout");
            assertThatThrownBy(() -> gate.advance("held", 2))
                    .isInstanceOfSatisfying(
                            StoreException.class, e -> assertThat(e.retryable()).isTrue())
                    .hasMessageContaining("a lock timeout");
            holder.rollback();
        }
        assertThat(batches.finish(claim, "done")).isTrue();
        gate.advance("held", 2);
    }

    /** The store's settings last only as long as its transaction: the pool's connection comes back as it was. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("fewSetups")
    void theConnectionGoesBackWithItsOwnIsolationAndLockTimeout(Setup setup) throws SQLException {
        DataSource ds = new CountingDataSource(dataSource(setup), 1);
        long before;
        try (Connection c = ds.getConnection()) {
            before = lockTimeoutMillis(c);
        }
        assertThat(before).isNotEqualTo(StoreConfig.DEFAULT_LOCK_TIMEOUT.toMillis());
        new FenceGate(ds).write("r", 1, tx -> insert(tx, "r", 1, "written"));
        BatchClaims batches = new BatchClaims(ds);
        batches.enqueue("b", "p");
        // a failed statement on its own (a duplicate key) leaves the connection usable, not in an aborted block
        assertThatThrownBy(() -> batches.enqueue("b", "p")).isInstanceOf(IllegalArgumentException.class);
        assertThat(batches.claimNext("w", Duration.ofSeconds(30)))
                .map(BatchClaim::batchId)
                .contains("b");
        if (setup.pool() == Pool.HIKARI) {
            try (Connection c = ds.getConnection()) { // the same physical connection: the pool holds one idle
                assertThat(c.getTransactionIsolation()).isEqualTo(setup.isolation().jdbc);
                assertThat(lockTimeoutMillis(c)).isEqualTo(before);
            }
        }
        assertThat(notes()).containsExactly("written");
    }

    // ---- one statement with the check (section 3) -------------------------------------------------------------

    private static final String INSERT = "INSERT INTO " + WRITES + " (resource, token, note) VALUES (?, ?, ?)";

    /** FenceGate.update: kept with a current token (first use included), undone with a stale one. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("fewSetups")
    void aStatementThroughTheGateIsKeptWithACurrentTokenAndUndoneWithAStaleOne(Setup setup) throws SQLException {
        FenceGate gate = new FenceGate(dataSource(setup));
        assertThat(gate.update("s", 5, INSERT, "s", 5L, "first use")).isEqualTo(1);
        assertThat(gate.update("s", 5, INSERT, "s", 5L, "equal token")).isEqualTo(1);
        assertThat(gate.update("s", 6, "UPDATE " + WRITES + " SET token = ? WHERE resource = ?", 6L, "s"))
                .isEqualTo(2);

        assertThatThrownBy(() -> gate.update("s", 4, INSERT, "s", 4L, "stale"))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.offeredToken()).isEqualTo(4);
                    assertThat(e.highestToken()).isEqualTo(6);
                });
        assertThat(notes()).containsExactly("first use", "equal token");
        assertThat(new FenceGate(database()).highestToken("s")).hasValue(6);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fewSetups")
    void aStatementThatIsNotOneWriteIsRefusedAndNothingIsKept(Setup setup) throws SQLException {
        FenceGate gate = new FenceGate(dataSource(setup));
        assertThatThrownBy(() -> gate.update("s", 1, "SELECT note FROM " + WRITES))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be one INSERT, UPDATE");
        assertThatThrownBy(() -> gate.update("s", 1, INSERT + " RETURNING id", "s", 1L, "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("RETURNING");
        assertThatThrownBy(() -> gate.update("s", 1, INSERT + "; DELETE FROM " + WRITES, "s", 1L, "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("without ';'");
        assertThatThrownBy(() -> gate.update("s", 1, " ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> gate.update("s", 1, INSERT, (Object[]) null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("params must not be null");
        assertThatThrownBy(() -> gate.update("s", 1, "INSERT INTO no_such_table VALUES (?)", 1L))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("fenced statement on 's' with token 1");
        assertThat(notes()).isEmpty();
        assertThat(new FenceGate(database()).highestToken("s")).isEmpty();
    }

    /**
     * Issue 21, defect 1. On PostgreSQL the gate sends a seen token's check, the statement and the COMMIT as one
     * string; a statement ending in a line comment swallowed the COMMIT: update() returned 1, and the debit was lost
     * when the connection closed (plain DataSource) or the connection went back to the pool with the transaction
     * open, holding the fence row (HikariCP). Text that can hide or add statements is refused at the door now, on
     * every database; nothing is sent, and the next leader's advance is not blocked.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("fewSetups")
    void aStatementWithACommentIsRefusedBeforeAnythingIsSent(Setup setup) throws SQLException {
        DataSource ds = dataSource(setup);
        FenceGate gate = new FenceGate(ds);
        assertThat(gate.update("acct", 1, INSERT, "acct", 1L, "100")).isEqualTo(1);
        assertThat(gate.update("acct", 1, "UPDATE " + WRITES + " SET note = ? WHERE resource = ?", "100", "acct"))
                .as("the token was seen: the next update takes the one-round-trip path")
                .isEqualTo(1);
        for (String debit : List.of(
                "UPDATE " + WRITES + " SET note = ? WHERE resource = ? -- debit",
                "UPDATE " + WRITES + " SET note = ? /* debit */ WHERE resource = ?",
                "UPDATE " + WRITES + " SET note = ? WHERE resource = ? /* debit")) {
            assertThatThrownBy(() -> gate.update("acct", 1, debit, "90", "acct"))
                    .as(debit)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("comment");
        }
        assertThat(notes()).containsExactly("100");
        new FenceGate(ds, StoreConfig.defaults().withLockTimeout(Duration.ofSeconds(2))).advance("acct", 2);
        assertThat(new FenceGate(database()).highestToken("acct")).hasValue(2);
    }

    private boolean ddlCommits() throws SQLException {
        try (Connection c = database().getConnection()) {
            return !c.getMetaData().getDatabaseProductName().toLowerCase().contains("postgres");
        }
    }

    /**
     * Issue 21, defect 2. SQL text that ends the gate's transaction (COMMIT and ROLLBACK everywhere; on H2 and
     * MariaDB DDL, which commits by itself) once released the mark's lock while the work went on: a newer leader's
     * advance completed and the old work's later writes committed after the newer mark. Such text is refused on the
     * work's statements before it is sent; a work that swallows the refusal is rolled back anyway.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("fewSetups")
    void sqlThatWouldEndTheGatesTransactionIsRefusedAndNothingIsKept(Setup setup) throws SQLException {
        FenceGate gate = new FenceGate(dataSource(setup));
        List<String> ending = new ArrayList<>(List.of("COMMIT", "rollback", "  /* c */ END", "START TRANSACTION"));
        if (ddlCommits()) {
            ending.addAll(List.of(
                    "TRUNCATE TABLE " + WRITES,
                    "CREATE TABLE tx_other (id INT)",
                    "ALTER TABLE " + WRITES + " ADD COLUMN x INT"));
        }
        for (String sql : ending) {
            assertThatThrownBy(() -> gate.write("r", 7, tx -> {
                        insert(tx, "r", 7, "before " + sql);
                        try (Statement s = tx.createStatement()) {
                            s.execute(sql);
                        }
                        insert(tx, "r", 7, "after " + sql);
                    }))
                    .as(sql)
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("refused: it would end the fenced transaction");
            assertThatThrownBy(() -> gate.write("r", 7, tx -> {
                        try (PreparedStatement p = tx.prepareStatement("SELECT 1; " + sql)) {
                            p.execute();
                        } catch (SQLException swallowed) {
                            insert(tx, "r", 7, "swallowed " + sql);
                        }
                    }))
                    .as("swallowed: " + sql)
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("refused");
        }
        gate.write("r", 7, tx -> {
            try (Statement s = tx.createStatement()) {
                s.execute("SAVEPOINT mine");
                insert(tx, "r", 7, "undone");
                s.execute("ROLLBACK TO SAVEPOINT mine");
            }
            insert(tx, "r", 7, "kept");
        });
        assertThat(notes()).containsExactly("kept");
        new FenceGate(database(), StoreConfig.defaults().withLockTimeout(Duration.ofSeconds(2))).advance("r", 8);
    }

    /**
     * Issue 21, defect 2, the backstop: SQL that reaches the driver's connection past the guard (unwrap) and commits
     * is caught before the gate commits: the transaction that took the mark is no longer the one open. What came
     * after it is rolled back and the write is reported failed, never done.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("fewSetups")
    void aCommitPastTheGuardIsCaughtBeforeTheGateCommits(Setup setup) throws SQLException {
        FenceGate gate = new FenceGate(dataSource(setup));
        gate.advance("r", 7);
        assertThatThrownBy(() -> gate.write("r", 7, tx -> {
                    try (Statement s = tx.unwrap(Connection.class).createStatement()) {
                        s.execute("COMMIT");
                    }
                    insert(tx, "r", 7, "after the commit");
                }))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("the work's SQL ended the gate's transaction");
        assertThat(notes()).doesNotContain("after the commit");
        new FenceGate(database(), StoreConfig.defaults().withLockTimeout(Duration.ofSeconds(2))).advance("r", 8);
    }

    /**
     * Issue 24: on PostgreSQL, MariaDB and MySQL a work of plain DML is not marked (it cannot end the transaction), so
     * nothing may lead past the guard unmarked. A result set's {@code getStatement()} was the driver's statement,
     * whose connection committed (caught only before the gate's commit, what came before it kept); it is the guarded
     * statement now, so the commit is refused and nothing is kept, on every database.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("fewSetups")
    void aCommitThroughAResultSetsStatementIsCaughtBeforeTheGateCommits(Setup setup) throws SQLException {
        FenceGate gate = new FenceGate(dataSource(setup));
        gate.advance("r", 7);
        assertThatThrownBy(() -> gate.write("r", 7, tx -> {
                    insert(tx, "r", 7, "before the commit");
                    try (Statement s = tx.createStatement();
                            ResultSet rs = s.executeQuery("SELECT 1")) {
                        rs.getStatement().getConnection().commit();
                    }
                    insert(tx, "r", 7, "after the commit");
                }))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("commit refused");
        assertThat(notes()).isEmpty();
        new FenceGate(database(), StoreConfig.defaults().withLockTimeout(Duration.ofSeconds(2))).advance("r", 8);
    }

    /** Issue 21, defect 8: a statement the work kept is closed when the work returns; it cannot reach another's. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("fewSetups")
    void aStatementTheWorkKeptIsClosedWhenTheWorkReturns(Setup setup) throws SQLException {
        FenceGate gate = new FenceGate(dataSource(setup));
        List<PreparedStatement> kept = new ArrayList<>();
        gate.write("r", 7, tx -> {
            PreparedStatement p =
                    tx.prepareStatement("INSERT INTO " + WRITES + " (resource, token, note) VALUES (?, ?, ?)");
            kept.add(p);
            p.setString(1, "r");
            p.setLong(2, 7);
            p.setString(3, "inside");
            p.executeUpdate();
        });
        PreparedStatement p = kept.get(0);
        assertThat(p.isClosed()).isTrue();
        assertThat(p.getConnection().toString()).startsWith("fenced transaction on");
        assertThatThrownBy(p::executeUpdate).isInstanceOf(SQLException.class);
        assertThat(notes()).containsExactly("inside");
    }

    /** A pool that hands out connections with auto-commit off: the same outcomes, in a transaction of the gate's. */
    @org.junit.jupiter.api.Test
    void aStatementThroughAPoolWithoutAutoCommitIsJudgedTheSameWay() throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setDataSource(database());
        config.setAutoCommit(false);
        config.setMaximumPoolSize(2);
        config.setPoolName("tx-no-autocommit");
        try (HikariDataSource pool = new HikariDataSource(config)) {
            FenceGate gate = new FenceGate(pool);
            assertThat(gate.update("s", 5, INSERT, "s", 5L, "current")).isEqualTo(1);
            assertThatThrownBy(() -> gate.update("s", 4, INSERT, "s", 4L, "stale"))
                    .isInstanceOf(StaleTokenException.class);
            assertThat(new BatchClaims(pool).claimNext("w", Duration.ofSeconds(1)))
                    .isEmpty();
            assertThat(gate.update("s", 5, INSERT, "s", 5L, "current again")).isEqualTo(1);
        }
        assertThat(notes()).containsExactly("current", "current again");
    }

    /** The stale statement queued behind a newer writer is judged with the check after the newer one commits. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("fewSetups")
    void aStaleStatementQueuedBehindANewerWriterIsRejected(Setup setup) throws Exception {
        FenceGate gate = new FenceGate(dataSource(setup));
        gate.advance("ledger", 1);
        CountDownLatch newerInside = new CountDownLatch(1);
        CountDownLatch releaseNewer = new CountDownLatch(1);
        ExecutorService pool = threads(2);
        Future<?> newer = pool.submit(() -> gate.write("ledger", 10, tx -> {
            insert(tx, "ledger", 10, "newer");
            newerInside.countDown();
            await(releaseNewer);
        }));
        assertThat(newerInside.await(20, TimeUnit.SECONDS)).isTrue();
        Future<Integer> stale = pool.submit(() -> gate.update("ledger", 5, INSERT, "ledger", 5L, "stale"));
        awaitWaiterOrDone(stale);
        releaseNewer.countDown();

        newer.get(20, TimeUnit.SECONDS);
        assertThatThrownBy(() -> stale.get(20, TimeUnit.SECONDS)).hasCauseInstanceOf(StaleTokenException.class);
        assertThat(notes()).containsExactly("newer");
    }

    /** Waits until a session waits on a lock, or {@code task} finished (there is no event for a lock wait). */
    void awaitWaiterOrDone(Future<?> task) throws SQLException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        try (Connection c = database().getConnection()) {
            while (!task.isDone() && sessionsWaitingOnLocks(c) < 1) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no session waited on a lock within 20 s");
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            }
        }
    }

    static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("latch not released within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
