package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.claims.BatchClaim;
import dev.leasehold.store.claims.BatchClaims;
import dev.leasehold.store.claims.BatchState;
import dev.leasehold.store.slots.SlotClaim;
import dev.leasehold.store.slots.SlotRuns;
import dev.leasehold.store.slots.SlotState;
import dev.leasehold.store.testing.CountingDataSource;
import dev.leasehold.store.testing.TestThreads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fenced store's contract, run against every database (see the subclasses). Threads are real; their order is
 * set with latches, and with the database's own view of which session waits on a lock.
 */
@Timeout(120)
abstract class FencedStoreContract {

    static final String WRITES = "test_writes";
    /** The store's lock timeout for the claimers and sweepers that must never wait. */
    static final StoreConfig IMPATIENT = StoreConfig.defaults().withLockTimeout(Duration.ofMillis(1));

    /** A data source whose lock waits fail after 10 s (LOCK_TIMEOUT, lock_timeout): a test stuck on a lock fails. */
    protected abstract DataSource dataSource();

    /** The same database, with a lock timeout of 1 ms: any statement that has to wait for a lock fails. */
    protected abstract DataSource impatientDataSource();

    /** How many sessions wait on a row lock right now, by the database's own account. */
    protected abstract int sessionsWaitingOnLocks(Connection connection) throws SQLException;

    /** The type of an identity column in this database's DDL. */
    protected String identityType() {
        return "BIGINT GENERATED ALWAYS AS IDENTITY";
    }

    private DataSource ds;
    private FenceGate gate;
    private BatchClaims batches;
    private SlotRuns slots;

    @RegisterExtension
    final TestThreads threads = new TestThreads();

    @BeforeEach
    void cleanSchema() throws SQLException {
        ds = dataSource();
        FencedSchema.install(ds);
        FencedSchema.install(ds); // idempotent
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + WRITES + " (id " + identityType() + " PRIMARY KEY,"
                    + " resource VARCHAR(200) NOT NULL, token BIGINT NOT NULL, note VARCHAR(200))");
            for (String table : List.of(
                    WRITES,
                    "leasehold_fence",
                    "leasehold_fence_rebase",
                    "leasehold_fence_history",
                    "leasehold_batches",
                    "leasehold_slot_runs")) {
                s.execute("DELETE FROM " + table);
            }
        }
        gate = new FenceGate(ds);
        batches = new BatchClaims(ds);
        slots = new SlotRuns(ds);
    }

    private ExecutorService threads(int n) {
        return threads.fixed(n);
    }

    private static FencedWork insertWrite(String resource, long token, String note) {
        return tx -> {
            try (PreparedStatement p =
                    tx.prepareStatement("INSERT INTO " + WRITES + " (resource, token, note) VALUES (?, ?, ?)")) {
                p.setString(1, resource);
                p.setLong(2, token);
                p.setString(3, note);
                p.executeUpdate();
            }
        };
    }

    private List<String> notes() throws SQLException {
        List<String> notes = new ArrayList<>();
        try (Connection c = ds.getConnection();
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
        try (Connection c = ds.getConnection()) {
            while (sessionsWaitingOnLocks(c) < n) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no session waited on the lock within 20 s");
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
        }
    }

    // ---- FenceGate ------------------------------------------------------------------------------------------

    @Test
    void equalAndHigherTokensPassALowerOneIsRejectedAndNothingOfItIsWritten() throws SQLException {
        gate.write("billing", 33, insertWrite("billing", 33, "A charges c1"));
        gate.write("billing", 33, insertWrite("billing", 33, "A charges c2"));
        gate.advance("billing", 34);
        gate.write("billing", 34, insertWrite("billing", 34, "B charges c3"));

        assertThatThrownBy(() -> gate.write("billing", 33, insertWrite("billing", 33, "A charges c3 again")))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.resource()).isEqualTo("billing");
                    assertThat(e.offeredToken()).isEqualTo(33);
                    assertThat(e.highestToken()).isEqualTo(34);
                    assertThat(e)
                            .hasMessageContaining("'billing'")
                            .hasMessageContaining("33")
                            .hasMessageContaining("34");
                });
        assertThat(notes()).containsExactly("A charges c1", "A charges c2", "B charges c3");
        assertThat(gate.highestToken("billing")).isEqualTo(OptionalLong.of(34));
        assertThat(gate.highestToken("never-used")).isEmpty();
        String result = gate.call("billing", 35, tx -> "result");
        assertThat(result).isEqualTo("result");
    }

    /**
     * Timeline: N (token 10) takes the fence row and holds its transaction open; S (token 5) arrives and waits on
     * the row lock; N commits; S's conditional update is re-evaluated against N's row and S is rejected.
     */
    @Test
    void aStaleWriterBlockedBehindANewerWriterIsRejectedOnceTheNewerCommits() throws Exception {
        gate.advance("ledger", 1);
        CountDownLatch newerInside = new CountDownLatch(1);
        CountDownLatch releaseNewer = new CountDownLatch(1);
        AtomicBoolean staleWorkRan = new AtomicBoolean();
        ExecutorService pool = threads(2);
        Future<?> newer = pool.submit(() -> gate.write("ledger", 10, tx -> {
            insertWrite("ledger", 10, "newer").run(tx);
            newerInside.countDown();
            await(releaseNewer);
        }));
        assertThat(newerInside.await(20, TimeUnit.SECONDS)).isTrue();
        Future<?> stale = pool.submit(() -> gate.write("ledger", 5, tx -> {
            staleWorkRan.set(true);
            insertWrite("ledger", 5, "stale").run(tx);
        }));
        awaitLockWaiters(1);
        releaseNewer.countDown();

        newer.get(20, TimeUnit.SECONDS);
        assertThatThrownBy(() -> stale.get(20, TimeUnit.SECONDS))
                .hasCauseInstanceOf(StaleTokenException.class)
                .cause()
                .hasMessageContaining("highest token seen is 10");
        assertThat(staleWorkRan).isFalse();
        assertThat(notes()).containsExactly("newer");
        assertThat(gate.highestToken("ledger")).isEqualTo(OptionalLong.of(10));
    }

    /** The reverse order: the older writer holds the row, the newer waits; both pass, the newer last. */
    @Test
    void anOlderWriterFirstThenANewerOneWaitingBothPass() throws Exception {
        gate.advance("ledger", 1);
        CountDownLatch olderInside = new CountDownLatch(1);
        CountDownLatch releaseOlder = new CountDownLatch(1);
        ExecutorService pool = threads(2);
        Future<?> older = pool.submit(() -> gate.write("ledger", 5, tx -> {
            insertWrite("ledger", 5, "older").run(tx);
            olderInside.countDown();
            await(releaseOlder);
        }));
        assertThat(olderInside.await(20, TimeUnit.SECONDS)).isTrue();
        Future<?> newer = pool.submit(() -> gate.write("ledger", 10, insertWrite("ledger", 10, "newer")));
        awaitLockWaiters(1);
        releaseOlder.countDown();

        older.get(20, TimeUnit.SECONDS);
        newer.get(20, TimeUnit.SECONDS);
        assertThat(notes()).containsExactly("older", "newer");
        assertThat(gate.highestToken("ledger")).isEqualTo(OptionalLong.of(10));
    }

    /** Many writers on a resource's first use: the row is created race-free; accepted tokens never go down. */
    @Test
    void concurrentWritersOnAFreshResourceNeverLetATokenGoBackwards() throws Exception {
        int writers = 8;
        ExecutorService pool = threads(writers);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Boolean>> results = new ArrayList<>();
        for (int t = 1; t <= writers; t++) {
            long token = t;
            results.add(pool.submit(() -> {
                await(go);
                try {
                    gate.write("fresh", token, insertWrite("fresh", token, "t" + token));
                    return true;
                } catch (StaleTokenException e) {
                    assertThat(e.highestToken()).isGreaterThan(token);
                    return false;
                }
            }));
        }
        go.countDown();
        int accepted = 0;
        for (Future<Boolean> result : results) {
            accepted += result.get(30, TimeUnit.SECONDS) ? 1 : 0;
        }
        List<Long> committed = new ArrayList<>();
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT token FROM " + WRITES + " ORDER BY id")) {
            while (rs.next()) {
                committed.add(rs.getLong(1));
            }
        }
        assertThat(committed).hasSize(accepted).isSorted();
        assertThat(gate.highestToken("fresh")).isEqualTo(OptionalLong.of(writers));
    }

    /**
     * Issue 21, defect 7: a resource is its exact text. On MariaDB with {@code utf8mb4_bin} (PAD SPACE) "billing " met
     * "billing"'s row: advancing it to 50 threw StaleTokenException(highest 100). Schema version 5 gives the keys a NO
     * PAD collation.
     */
    @Test
    void resourcesThatDifferOnlyByTrailingBlanksAreTwoResources() {
        gate.advance("billing", 100);
        gate.advance("billing ", 50);
        gate.advance("billing  ", 7);
        assertThat(gate.highestToken("billing")).isEqualTo(OptionalLong.of(100));
        assertThat(gate.highestToken("billing ")).isEqualTo(OptionalLong.of(50));
        assertThat(gate.highestToken("billing  ")).isEqualTo(OptionalLong.of(7));
    }

    @Test
    void aRebaseLowersTheMarkOnlyWhenAskedAndIsRecorded() throws SQLException {
        gate.advance("billing", 0x39);
        assertThatThrownBy(() -> gate.advance("billing", 0x6)).isInstanceOf(StaleTokenException.class);

        assertThatThrownBy(() -> gate.rebase("billing", 0, "alice", "a mark of 0 is no token"))
                .as("a re-base refuses 0 as every write does: tokens are positive")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("newToken must be positive, was 0");
        OptionalLong before = gate.rebase("billing", 0x6, "alice", "ZooKeeper ensemble rebuilt from scratch");

        assertThat(before).isEqualTo(OptionalLong.of(0x39));
        assertThat(gate.highestToken("billing")).isEqualTo(OptionalLong.of(0x6));
        gate.write("billing", 0x7, insertWrite("billing", 7, "new leader after rebuild"));
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT resource, old_token, new_token, operator, reason" + " FROM leasehold_fence_rebase")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString("resource")).isEqualTo("billing");
            assertThat(rs.getLong("old_token")).isEqualTo(0x39);
            assertThat(rs.getLong("new_token")).isEqualTo(0x6);
            assertThat(rs.getString("operator")).isEqualTo("alice");
            assertThat(rs.getString("reason")).contains("rebuilt");
            assertThat(rs.next()).isFalse();
        }
    }

    // ---- BatchClaims ----------------------------------------------------------------------------------------

    /**
     * 8 threads claim from 400 batches: each batch finished exactly once, and no claim ever waited on another claim
     * (claims go through a data source that fails any statement waiting more than 1 ms for a lock). Finishes use the
     * normal data source: on H2 a finish can wait for microseconds behind a claimer that locked the row and let it go.
     * The waits SKIP LOCKED cannot avoid (on PostgreSQL, for the finish of a batch claimed an instant before, and for
     * the lock that extends a table) the store makes again by itself: the test calls it as a user would.
     */
    @Test
    void eightClaimersFinishEachOfFourHundredBatchesExactlyOnce() throws Exception {
        for (int i = 0; i < 400; i++) {
            batches.enqueue(String.format("batch-%04d", i), "payload-" + i);
        }
        // the store sets its own lock timeout per transaction: 1 ms here, so that any lock wait fails
        BatchClaims impatient = new BatchClaims(impatientDataSource(), IMPATIENT);
        Map<String, AtomicInteger> finished = new ConcurrentHashMap<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        ExecutorService pool = threads(8);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        for (int w = 0; w < 8; w++) {
            String owner = "worker-" + w;
            workers.add(pool.submit(() -> {
                await(go);
                try {
                    Optional<BatchClaim> claim;
                    while ((claim = impatient.claimNext(owner, Duration.ofMinutes(5))).isPresent()) {
                        assertThat(claim.get().fence()).isEqualTo(1);
                        if (batches.finish(claim.get(), "done by " + owner)) {
                            finished.computeIfAbsent(claim.get().batchId(), k -> new AtomicInteger())
                                    .incrementAndGet();
                        }
                    }
                } catch (Throwable t) {
                    failures.add(t); // a lock wait longer than the data source's lock timeout lands here
                }
            }));
        }
        go.countDown();
        for (Future<?> worker : workers) {
            worker.get(60, TimeUnit.SECONDS);
        }
        assertThat(failures).isEmpty();
        assertThat(finished).hasSize(400);
        assertThat(finished.values())
                .allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
        assertThat(batches.claimNext("late", Duration.ofSeconds(1))).isEmpty();
    }

    /** A batch row locked by someone else is skipped at once, not waited for. */
    @Test
    void aClaimerSkipsALockedBatchInsteadOfWaiting() throws Exception {
        batches.enqueue("b1", "p1");
        batches.enqueue("b2", "p2");
        try (Connection holder = ds.getConnection()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.executeQuery("SELECT id FROM leasehold_batches WHERE id = 'b1' FOR UPDATE")
                        .close();
            }
            Optional<BatchClaim> claim = batches.claimNext("worker", Duration.ofSeconds(30));
            assertThat(claim).map(BatchClaim::batchId).contains("b2");
            holder.rollback();
        }
        assertThat(batches.claimNext("worker", Duration.ofSeconds(30)))
                .map(BatchClaim::batchId)
                .contains("b1");
    }

    /**
     * Incident 1, fixed. A claims batch 1 with fence 1 and a 500 ms lease, then pauses 1 s; B claims batch 1 with
     * fence 2 and finishes it (1 row); A wakes and its finish updates 0 rows. Batches 2 and 3 stay pending, fence 0.
     */
    @Test
    void incidentOneReplayedTheLateFinishOfALostClaimChangesNothing() throws Exception {
        batches.enqueue("batch-1", "orders 1..100");
        batches.enqueue("batch-2", "orders 101..200");
        batches.enqueue("batch-3", "orders 201..300");

        BatchClaim a = batches.claimNext("pod-A", Duration.ofMillis(500)).orElseThrow();
        assertThat(a.batchId()).isEqualTo("batch-1");
        assertThat(a.fence()).isEqualTo(1);
        Thread.sleep(1000); // stands for pod-A's pause (a GC pause, a slow accounting API), longer than its lease

        BatchClaim b = batches.claimNext("pod-B", Duration.ofSeconds(10)).orElseThrow();
        assertThat(b.batchId()).isEqualTo("batch-1");
        assertThat(b.fence()).isEqualTo(2);
        assertThat(batches.finish(b, "pushed by pod-B")).isTrue();
        assertThat(batches.finish(a, "pushed by pod-A")).as("A's late finish").isFalse();
        assertThat(batches.renew(a, Duration.ofSeconds(1))).isFalse();

        assertThat(batches.state("batch-1")).get().satisfies(s -> {
            assertThat(s.status()).isEqualTo("done");
            assertThat(s.owner()).isEqualTo("pod-B");
            assertThat(s.fence()).isEqualTo(2);
            assertThat(s.result()).isEqualTo("pushed by pod-B");
        });
        for (String id : List.of("batch-2", "batch-3")) {
            assertThat(batches.state(id)).get().satisfies(s -> {
                assertThat(s.status()).isEqualTo("pending");
                assertThat(s.fence()).isZero();
                assertThat(s.owner()).isNull();
            });
        }
    }

    @Test
    void renewKeepsTheClaimOnlyWhileItIsCurrent() {
        batches.enqueue("b1", "p");
        BatchClaim claim = batches.claimNext("w", Duration.ofSeconds(30)).orElseThrow();
        assertThat(batches.renew(claim, Duration.ofSeconds(60))).isTrue();
        assertThat(batches.claimNext("other", Duration.ofSeconds(30))).isEmpty();
        assertThat(batches.finish(claim, "ok")).isTrue();
        assertThat(batches.renew(claim, Duration.ofSeconds(60)))
                .as("renew after finish")
                .isFalse();
        assertThat(batches.finish(claim, "again")).as("finish twice").isFalse();
    }

    // ---- SlotRuns -------------------------------------------------------------------------------------------

    /** 10 threads race for each of 40 slots: exactly one winner per slot, losers get empty (no exception). */
    @Test
    void tenRacersPerSlotExactlyOneWinnerForEachOfFortySlots() throws Exception {
        ExecutorService pool = threads(10);
        Instant base = Instant.parse("2026-11-29T03:00:00Z");
        for (int s = 0; s < 40; s++) {
            Instant slot = base.plusSeconds(60L * s);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Optional<SlotClaim>>> racers = new ArrayList<>();
            for (int r = 0; r < 10; r++) {
                String runner = "replica-" + r;
                racers.add(pool.submit(() -> {
                    await(go);
                    return slots.tryClaim("report", slot, runner, Duration.ofSeconds(30));
                }));
            }
            go.countDown();
            List<SlotClaim> winners = new ArrayList<>();
            for (Future<Optional<SlotClaim>> racer : racers) {
                racer.get(30, TimeUnit.SECONDS).ifPresent(winners::add);
            }
            assertThat(winners).as("winners of slot %s", slot).hasSize(1);
            assertThat(slots.state("report", slot))
                    .get()
                    .extracting(SlotState::runner)
                    .isEqualTo(winners.get(0).runner());
        }
    }

    /**
     * Case 3: the winner of a slot crashes (or stalls); after its lease another replica's sweep takes the slot over
     * with a higher fence; the slow original runner's late complete is rejected. A deploy gap leaves two slots
     * unclaimed; the scan finds them and they are caught up; a done slot cannot be run again.
     */
    @Test
    void sweepTakesOverAnExpiredSlotAndCatchUpFillsAGap() throws Exception {
        Instant base = Instant.parse("2026-11-29T03:00:00Z");
        Duration minute = Duration.ofMinutes(1);
        for (int m : new int[] {0, 1, 4}) {
            SlotClaim claim = slots.tryClaim(
                            "report", base.plus(minute.multipliedBy(m)), "replica-0", Duration.ofSeconds(30))
                    .orElseThrow();
            assertThat(slots.complete(claim, "ok")).isTrue();
        }
        SlotClaim crashed = slots.tryClaim(
                        "report", base.plus(minute.multipliedBy(5)), "replica-0", Duration.ofMillis(300))
                .orElseThrow();
        assertThat(slots.sweep("report", "replica-7", Duration.ofSeconds(30)))
                .as("lease not yet expired")
                .isEmpty();
        Thread.sleep(600); // stands for the time the crashed runner stays silent, longer than its lease

        List<SlotClaim> taken = slots.sweep("report", "replica-7", Duration.ofSeconds(30));

        assertThat(taken).containsExactly(new SlotClaim("report", crashed.slot(), "replica-7", 2));
        assertThat(slots.sweep("report", "replica-8", Duration.ofSeconds(30)))
                .as("taken once")
                .isEmpty();
        assertThat(slots.complete(crashed, "late result"))
                .as("the slow original runner")
                .isFalse();
        assertThat(slots.complete(taken.get(0), "swept result")).isTrue();
        assertThat(slots.state("report", crashed.slot())).get().satisfies(s -> {
            assertThat(s.runner()).isEqualTo("replica-7");
            assertThat(s.result()).isEqualTo("swept result");
            assertThat(s.fence()).isEqualTo(2);
        });

        List<Instant> missing = slots.missingSlots("report", base, base.plus(minute.multipliedBy(6)), minute);
        assertThat(missing).containsExactly(base.plus(minute.multipliedBy(2)), base.plus(minute.multipliedBy(3)));
        for (Instant slot : missing) {
            SlotClaim caughtUp = slots.tryClaim("report", slot, "replica-3", Duration.ofSeconds(30))
                    .orElseThrow();
            assertThat(slots.complete(caughtUp, "caught up")).isTrue();
        }
        assertThat(slots.missingSlots("report", base, base.plus(minute.multipliedBy(6)), minute))
                .isEmpty();
        assertThat(slots.tryClaim("report", base, "replica-9", Duration.ofSeconds(30)))
                .as("done slot, again")
                .isEmpty();
    }

    /**
     * Two sweepers at once over 50 expired slots: each slot taken over once, by one of them, and neither waited for
     * the other (a lock timeout of 1 ms; the waits SKIP LOCKED cannot avoid the store makes again by itself).
     */
    @Test
    void concurrentSweepersNeverTakeTheSameSlot() throws Exception {
        Instant base = Instant.parse("2026-11-29T03:00:00Z");
        for (int m = 0; m < 50; m++) {
            slots.tryClaim("report", base.plusSeconds(60L * m), "crashed", Duration.ofMillis(100))
                    .orElseThrow();
        }
        Thread.sleep(300); // stands for the crashed runners' silence, longer than their leases
        SlotRuns impatient = new SlotRuns(impatientDataSource(), IMPATIENT);
        ExecutorService pool = threads(2);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<List<SlotClaim>>> sweeps = new ArrayList<>();
        for (String sweeper : List.of("sweeper-1", "sweeper-2")) {
            sweeps.add(pool.submit(() -> {
                await(go);
                return impatient.sweep("report", sweeper, Duration.ofMinutes(5));
            }));
        }
        go.countDown();
        List<SlotClaim> taken = new ArrayList<>(sweeps.get(0).get(30, TimeUnit.SECONDS));
        taken.addAll(sweeps.get(1).get(30, TimeUnit.SECONDS));

        assertThat(taken).hasSize(50);
        assertThat(taken.stream().map(SlotClaim::slot).distinct()).hasSize(50);
        assertThat(taken).allSatisfy(claim -> assertThat(claim.fence()).isEqualTo(2));
    }

    // ---- bad input and faults -------------------------------------------------------------------------------

    /** A fencing token is a czxid, always positive (FencingToken refuses 0): a 0 is a bug in the caller. */
    @Test
    void aZeroTokenIsRejectedBeforeAnythingIsWritten() throws SQLException {
        FencedWork work = insertWrite("r", 1, "must not be written");
        assertThatThrownBy(() -> gate.write("r", 0, work))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("token must be positive, was 0");
        assertThatThrownBy(() -> gate.advance("r", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("token must be positive, was 0");
        assertThat(notes()).isEmpty();
    }

    @Test
    void badInputIsRejectedBeforeAnythingIsWritten() throws SQLException {
        FencedWork work = insertWrite("r", 1, "must not be written");
        assertThatThrownBy(() -> gate.write(null, 1, work))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("resource must be a non-blank string");
        assertThatThrownBy(() -> gate.write(" ", 1, work)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> gate.write("x".repeat(201), 1, work))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 200");
        assertThatThrownBy(() -> gate.write("r", -1, work))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("token must be positive, was -1");
        assertThatThrownBy(() -> gate.write("r", 1, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("work must not be null");
        assertThatThrownBy(() -> gate.advance("r", -5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> gate.rebase("r", 1, "", "why"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("operator");

        assertThatThrownBy(() -> batches.enqueue("", "p")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> batches.enqueue("b", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("payload must not be null");
        assertThatThrownBy(() -> batches.claimNext("w", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease must be positive");
        assertThatThrownBy(() -> batches.claimNext("w", Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> batches.claimNext("w", Duration.ofNanos(1500)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("whole milliseconds");
        batches.enqueue("b", "p");
        assertThatThrownBy(() -> batches.enqueue("b", "p2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("already enqueued");
        assertThat(batches.state("b")).get().extracting(BatchState::status).isEqualTo("pending");

        Instant slot = Instant.parse("2026-11-29T03:00:00Z");
        Duration minute = Duration.ofMinutes(1);
        assertThatThrownBy(() -> slots.tryClaim("job", slot.plusNanos(1), "r", minute))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("millisecond precision");
        assertThatThrownBy(() -> slots.tryClaim("job", slot, "r", Duration.ofDays(8)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> slots.missingSlots("job", slot.plus(minute), slot, minute))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be after");
        assertThatThrownBy(() -> slots.missingSlots("job", slot.plusSeconds(1), slot.plus(minute), minute))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not on the grid");
        assertThatThrownBy(() -> slots.missingSlots("job", slot, slot.plus(minute), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("period");
        assertThatThrownBy(
                        () -> slots.missingSlots("job", slot, slot.plus(Duration.ofDays(365)), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most");
        assertThatThrownBy(() -> StoreConfig.defaults().withTablePrefix("x; DROP TABLE t; --"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tablePrefix");

        assertThat(notes()).isEmpty();
        assertThat(gate.highestToken("r")).isEmpty();
        assertThat(slots.state("job", slot)).isEmpty();
    }

    /** Every connection is returned on every path: the pool here holds ONE connection, so a leak fails the next call. */
    @Test
    void failingWorkRollsBackAndEveryConnectionIsReturned() throws SQLException {
        CountingDataSource pool = new CountingDataSource(ds, 1);
        FenceGate smallGate = new FenceGate(pool);
        BatchClaims smallBatches = new BatchClaims(pool);
        SlotRuns smallSlots = new SlotRuns(pool);
        smallGate.advance("r", 5);

        IllegalStateException boom = new IllegalStateException("work failed after writing");
        assertThatThrownBy(() -> smallGate.write("r", 6, tx -> {
                    insertWrite("r", 6, "rolled back").run(tx);
                    throw boom;
                }))
                .isSameAs(boom);
        assertThatThrownBy(() -> smallGate.write("r", 7, tx -> {
                    insertWrite("r", 7, "rolled back too").run(tx);
                    throw new SQLException("a constraint the work broke", "23000");
                }))
                .isInstanceOfSatisfying(StoreException.class, e -> {
                    assertThat(e).hasMessageContaining("fenced write to 'r' with token 7");
                    assertThat(e.sqlException().getMessage()).isEqualTo("a constraint the work broke");
                });
        assertThat(smallGate.highestToken("r"))
                .as("the failed writes did not raise the mark")
                .isEqualTo(OptionalLong.of(5));
        assertThatThrownBy(() -> smallGate.write("r", 4, tx -> {})).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> smallGate.write("", 4, tx -> {})).isInstanceOf(IllegalArgumentException.class);
        smallBatches.enqueue("b", "p");
        assertThatThrownBy(() -> smallBatches.enqueue("b", "p")).isInstanceOf(IllegalArgumentException.class);
        BatchClaim claim = smallBatches.claimNext("w", Duration.ofSeconds(5)).orElseThrow();
        assertThat(smallBatches.finish(claim, "ok")).isTrue();
        assertThat(smallBatches.finish(claim, "ok")).isFalse();
        Instant slot = Instant.parse("2026-11-29T03:00:00Z");
        assertThat(smallSlots.tryClaim("j", slot, "a", Duration.ofSeconds(5))).isPresent();
        assertThat(smallSlots.tryClaim("j", slot, "b", Duration.ofSeconds(5))).isEmpty();
        assertThat(smallSlots.sweep("j", "c", Duration.ofSeconds(5))).isEmpty();
        assertThat(smallSlots.missingSlots("j", slot, slot.plusSeconds(120), Duration.ofMinutes(1)))
                .hasSize(1);

        assertThat(notes()).isEmpty();
        assertThat(pool.open()).isZero();
    }

    @Test
    void aDatabaseErrorNamesTheOperationAndCarriesTheSqlException() {
        FenceGate elsewhere = new FenceGate(ds, StoreConfig.defaults().withTablePrefix("not_installed_"));
        assertThatThrownBy(() -> elsewhere.advance("r", 1)).isInstanceOfSatisfying(StoreException.class, e -> {
            assertThat(e).hasMessageContaining("advancing the fence of 'r' to 1 failed");
            assertThat(e.sqlException() != null)
                    .as("an SQLException is attached")
                    .isTrue();
        });
    }

    @Test
    void aTablePrefixKeepsTwoStoresApart() {
        StoreConfig other = StoreConfig.defaults().withTablePrefix("other_");
        FencedSchema.install(ds, other);
        FenceGate otherGate = new FenceGate(ds, other);
        otherGate.rebase("shared-name", 1, "test", "start from a clean mark");
        gate.advance("shared-name", 50);
        otherGate.advance("shared-name", 3);
        assertThat(gate.highestToken("shared-name")).isEqualTo(OptionalLong.of(50));
        assertThat(otherGate.highestToken("shared-name")).isEqualTo(OptionalLong.of(3));
    }

    /**
     * Issue 21: every gate statement on a locked mark keeps the configured lock timeout. Another connection holds the
     * resource's mark (SELECT ... FOR UPDATE in an open transaction, a paused leader's transaction); with a 200 ms
     * lock timeout (1 s on MariaDB, which counts seconds) each of write, call, update (the two-step path of a new
     * token and the short path of a token the gate saw pass), advance and rebase must fail with a retryable
     * StoreException that says "a lock timeout", within 5 s each (the data source's own lock timeout is 10 s). Once
     * the row is free they pass.
     */
    @Test
    void everyGateStatementOnALockedMarkFailsWithinTheLockTimeout() throws SQLException {
        FenceGate impatient = new FenceGate(ds, StoreConfig.defaults().withLockTimeout(Duration.ofMillis(200)));
        impatient.advance("ledger", 5); // the gate saw 5 pass: its update of 5 takes the short path
        try (Connection holder = ds.getConnection()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.executeQuery("SELECT token FROM leasehold_fence WHERE resource = 'ledger' FOR UPDATE")
                        .close();
            }
            try {
                String insert = "INSERT INTO " + WRITES + " (resource, token, note) VALUES (?, ?, ?)";
                lockTimeoutWithin5s("write", () -> impatient.write("ledger", 6, tx -> fail(tx)));
                lockTimeoutWithin5s("call", () -> impatient.call("ledger", 6, tx -> fail(tx)));
                lockTimeoutWithin5s(
                        "update (new token)", () -> impatient.update("ledger", 6, insert, "ledger", 6, "n"));
                lockTimeoutWithin5s(
                        "update (seen token)", () -> impatient.update("ledger", 5, insert, "ledger", 5, "s"));
                lockTimeoutWithin5s("advance", () -> impatient.advance("ledger", 7));
                lockTimeoutWithin5s("rebase", () -> impatient.rebase("ledger", 1, "ops", "test"));
            } finally {
                holder.rollback();
            }
        }
        assertThat(impatient.update(
                        "ledger", 5, "INSERT INTO " + WRITES + " (resource, token) VALUES (?, ?)", "after", 5))
                .as("once the row is free, the write passes")
                .isEqualTo(1);
        assertThat(writesOf("ledger"))
                .as("nothing of the timed-out calls was kept")
                .isEmpty();
    }

    /** Work that must never run: the check before it must have failed. */
    private static Void fail(Connection tx) {
        throw new AssertionError("the work ran although the mark was locked");
    }

    /** Asserts that {@code call} fails with a retryable lock timeout, preempting it if it still waits after 5 s. */
    private static void lockTimeoutWithin5s(String what, org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                Duration.ofSeconds(5),
                () -> assertThatThrownBy(call).as(what).isInstanceOfSatisfying(StoreException.class, e -> {
                    assertThat(e.retryable()).as(what + " retryable").isTrue();
                    assertThat(e).as(what).hasMessageContaining("failed: a lock timeout");
                }),
                what + " still waited for the locked mark after 5 s (10 lock timeouts)");
    }

    private List<String> writesOf(String resource) throws SQLException {
        List<String> notes = new ArrayList<>();
        try (Connection c = ds.getConnection();
                PreparedStatement p = c.prepareStatement("SELECT note FROM " + WRITES + " WHERE resource = ?")) {
            p.setString(1, resource);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    notes.add(rs.getString(1));
                }
            }
        }
        return notes;
    }

    private static void await(CountDownLatch latch) {
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
