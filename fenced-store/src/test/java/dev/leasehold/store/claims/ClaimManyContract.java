package dev.leasehold.store.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Claims at scale (issue 16): {@code claimUpTo} claims many batches in one call and {@code finishAll} finishes many,
 * each still judged by its own fence, with every guarantee of {@code claimNext} and {@code finish}: the same order
 * (expired leases first, then the oldest pending), the same attempts rules, exactly once under racing claimers, a
 * late finish refused, bad input rejected with nothing written. Run against every database (see the subclasses).
 */
@Timeout(60)
abstract class ClaimManyContract {

    /** A lease short enough to let expire in a test, and the pause that outlasts it. */
    static final Duration SHORT_LEASE = Duration.ofMillis(50);

    static final long PAUSE_MS = 150;
    static final Duration LONG_LEASE = Duration.ofMinutes(5);

    /** The claims' lock timeout in the concurrency test: any lock wait fails (on MariaDB, one of more than 1 s). */
    private static final Duration ONE_MS = Duration.ofMillis(1);

    protected abstract DataSource dataSource();

    /** The same database, with a lock timeout of 1 ms: any statement that has to wait for a lock fails. */
    protected abstract DataSource impatientDataSource();

    private DataSource ds;
    private BatchClaims batches;
    private ExecutorService pool;

    @BeforeEach
    void cleanSchema() throws SQLException {
        ds = dataSource();
        FencedSchema.install(ds);
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("DELETE FROM leasehold_batches");
        }
        batches = new BatchClaims(ds, StoreConfig.defaults().withMaxAttempts(3));
    }

    @AfterEach
    void stopThreads() {
        if (pool != null) {
            pool.shutdownNow();
        }
    }

    private static List<String> ids(List<BatchClaim> claims) {
        return claims.stream().map(BatchClaim::batchId).toList();
    }

    @Test
    void claimUpToTakesExpiredLeasesFirstThenTheOldestPendingBatchesAndRaisesEachFence() throws InterruptedException {
        for (String id : List.of("b1", "b2", "b3", "b4", "b5")) {
            batches.enqueue(id, "payload of " + id);
        }
        BatchClaim crashed = batches.claimUpTo("crashing", SHORT_LEASE, 1).get(0);
        assertThat(crashed.batchId()).isEqualTo("b1");
        Thread.sleep(PAUSE_MS); // stands for the claimer of b1 crashing: silent longer than its lease

        List<BatchClaim> claimed = batches.claimUpTo("w", Duration.ofSeconds(30), 3);

        assertThat(ids(claimed)).containsExactly("b1", "b2", "b3");
        assertThat(claimed.get(0).fence()).isEqualTo(2);
        assertThat(claimed.get(0).attempt()).as("the expired lease counted").isEqualTo(2);
        for (BatchClaim claim : claimed) {
            assertThat(claim.owner()).isEqualTo("w");
            assertThat(claim.payload()).isEqualTo("payload of " + claim.batchId());
            assertThat(batches.state(claim.batchId())).get().satisfies(s -> {
                assertThat(s.status()).isEqualTo("processing");
                assertThat(s.owner()).isEqualTo("w");
                assertThat(s.fence()).isEqualTo(claim.fence());
                assertThat(s.attempts()).isEqualTo(claim.attempt());
                assertThat(s.leaseUntil())
                        .as("the lease from the database clock")
                        .isEqualTo(claim.leaseUntil());
            });
        }
        assertThat(claimed.subList(1, 3)).allSatisfy(c -> assertThat(c.fence()).isEqualTo(1));
        assertThat(ids(batches.claimUpTo("w", Duration.ofSeconds(30), 10))).containsExactly("b4", "b5");
        assertThat(batches.claimUpTo("w", Duration.ofSeconds(30), 10))
                .as("nothing left to claim")
                .isEmpty();
    }

    /** maxAttempts 3: three leases of "silent" expire; the next claimUpTo fails it for good and claims the rest. */
    @Test
    void anExpiredBatchWithNoAttemptsLeftIsFailedInsteadOfClaimed() throws InterruptedException {
        batches.enqueue("silent", "p");
        for (int attempt = 1; attempt <= 3; attempt++) {
            List<BatchClaim> claim = batches.claimUpTo("crashing", SHORT_LEASE, 1);
            assertThat(ids(claim)).as("expired leases first").containsExactly("silent");
            assertThat(claim.get(0).attempt()).isEqualTo(attempt);
            if (attempt == 1) {
                batches.enqueue("next-1", "p");
                batches.enqueue("next-2", "p");
            }
            Thread.sleep(PAUSE_MS); // stands for the claimer crashing: silent longer than its lease
        }

        assertThat(ids(batches.claimUpTo("w", Duration.ofSeconds(30), 5))).containsExactly("next-1", "next-2");
        assertThat(batches.state("silent")).get().satisfies(s -> {
            assertThat(s.status()).isEqualTo("failed");
            assertThat(s.attempts()).isEqualTo(3);
            assertThat(s.error()).contains("lease of attempt 3 ended");
        });
    }

    @Test
    void aBatchThatFailedItsLastAttemptIsNeverClaimedAgain() {
        batches.enqueue("poison", "p");
        for (int attempt = 1; attempt <= 3; attempt++) {
            BatchClaim claim =
                    batches.claimUpTo("w", Duration.ofSeconds(30), 10).get(0);
            assertThat(claim.attempt()).isEqualTo(attempt);
            assertThat(batches.fail(claim, "boom " + attempt)).isTrue();
        }
        assertThat(batches.claimUpTo("w", Duration.ofSeconds(30), 10)).isEmpty();
        assertThat(batches.state("poison")).get().extracting(BatchState::status).isEqualTo("failed");
    }

    /**
     * Timeline: A claims x with a short lease and y, z with a long one; A pauses past x's lease; B claims x (fence 2).
     * A's finishAll of x, y, z: y and z finish, x is refused and stays B's. B then finishes x.
     */
    @Test
    void aLateFinishIsRefusedWithinFinishAllWhileTheOthersOfTheSameCallFinish() throws InterruptedException {
        // y and z first, with the long lease, so that x's short lease cannot run out between A's two claims
        batches.enqueue("y", "p");
        batches.enqueue("z", "p");
        List<BatchClaim> a = new ArrayList<>(batches.claimUpTo("pod-A", Duration.ofSeconds(30), 2));
        batches.enqueue("x", "p");
        a.addAll(batches.claimUpTo("pod-A", SHORT_LEASE, 1));
        assertThat(ids(a)).containsExactly("y", "z", "x");
        Thread.sleep(PAUSE_MS); // stands for pod-A's pause, longer than x's lease
        List<BatchClaim> b = batches.claimUpTo("pod-B", Duration.ofSeconds(30), 5);
        assertThat(ids(b)).containsExactly("x");
        assertThat(b.get(0).fence()).isEqualTo(2);

        FinishOutcome late = batches.finishAll(a, "pushed by pod-A");

        assertThat(ids(late.finished())).containsExactlyInAnyOrder("y", "z");
        assertThat(late.refused()).containsExactly(a.get(2));
        assertThat(late.allFinished()).isFalse();
        assertThat(batches.state("x")).get().satisfies(s -> {
            assertThat(s.status()).isEqualTo("processing");
            assertThat(s.owner()).isEqualTo("pod-B");
            assertThat(s.result()).isNull();
        });
        for (String id : List.of("y", "z")) {
            assertThat(batches.state(id)).get().satisfies(s -> {
                assertThat(s.status()).isEqualTo("done");
                assertThat(s.result()).isEqualTo("pushed by pod-A");
            });
        }
        FinishOutcome current = batches.finishAll(b, "pushed by pod-B");
        assertThat(current.finished()).containsExactly(b.get(0));
        assertThat(current.allFinished()).isTrue();
        assertThat(batches.finishAll(b, "again").refused())
                .as("a claim finishes once")
                .containsExactly(b.get(0));
        assertThat(batches.state("x")).get().extracting(BatchState::result).isEqualTo("pushed by pod-B");
    }

    /**
     * 4 threads claim 25 at a time from 1,000 batches and finish them with finishAll: each batch finished exactly
     * once, and no claim ever waited on another claim (the claims' store has a lock timeout of 1 ms, 1 s on MariaDB,
     * so a lock wait fails; the waits SKIP LOCKED cannot avoid on PostgreSQL the store makes again by itself).
     */
    @Test
    void fourClaimersUsingClaimUpToFinishEachOfAThousandBatchesExactlyOnce() throws Exception {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            for (int i = 0; i < 1000; i++) {
                s.addBatch("INSERT INTO leasehold_batches (id, payload, status, fence, attempts, enqueued_at) VALUES"
                        + " ('" + String.format("batch-%04d", i) + "', 'p', 'pending', 0, 0, CURRENT_TIMESTAMP)");
            }
            s.executeBatch();
        }
        BatchClaims impatient = new BatchClaims(
                impatientDataSource(), StoreConfig.defaults().withMaxAttempts(3).withLockTimeout(ONE_MS));
        Map<String, AtomicInteger> finished = new ConcurrentHashMap<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        pool = Executors.newFixedThreadPool(4);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            String owner = "worker-" + w;
            workers.add(pool.submit(() -> {
                try {
                    go.await();
                    List<BatchClaim> claims;
                    while (!(claims = impatient.claimUpTo(owner, LONG_LEASE, 25)).isEmpty()) {
                        assertThat(claims).hasSizeLessThanOrEqualTo(25);
                        assertThat(claims).allSatisfy(c -> assertThat(c.fence()).isEqualTo(1));
                        FinishOutcome outcome = batches.finishAll(claims, "done by " + owner);
                        assertThat(outcome.refused()).isEmpty();
                        for (BatchClaim claim : outcome.finished()) {
                            finished.computeIfAbsent(claim.batchId(), k -> new AtomicInteger())
                                    .incrementAndGet();
                        }
                    }
                } catch (Throwable t) {
                    failures.add(t); // a claim's lock wait on another claim lands here
                }
            }));
        }
        go.countDown();
        for (Future<?> worker : workers) {
            worker.get(60, TimeUnit.SECONDS);
        }
        assertThat(failures).isEmpty();
        assertThat(finished).hasSize(1000);
        assertThat(finished.values())
                .allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
        assertThat(batches.stats().done()).isEqualTo(1000);
    }

    @Test
    void finishAllOfNoClaimsFinishesNothing() {
        FinishOutcome outcome = batches.finishAll(List.of(), "ok");
        assertThat(outcome.finished()).isEmpty();
        assertThat(outcome.refused()).isEmpty();
        assertThat(outcome.allFinished()).isTrue();
    }

    @Test
    void badInputIsRejectedAtTheDoorAndNothingIsWritten() {
        batches.enqueue("b1", "p");
        batches.enqueue("b2", "p");
        Duration lease = Duration.ofSeconds(30);
        assertThatThrownBy(() -> batches.claimUpTo("w", lease, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("max must be between 1 and 1000, was 0");
        assertThatThrownBy(() -> batches.claimUpTo("w", lease, 1001))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max must be between 1 and 1000");
        assertThatThrownBy(() -> batches.claimUpTo(" ", lease, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("owner");
        assertThatThrownBy(() -> batches.claimUpTo("w", Duration.ZERO, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease");
        assertThat(batches.state("b1")).get().extracting(BatchState::status).isEqualTo("pending");

        List<BatchClaim> claims = batches.claimUpTo("w", lease, 2);
        BatchClaim b1 = claims.get(0);
        BatchClaim b2 = claims.get(1);
        assertThatThrownBy(() -> batches.finishAll(null, "ok"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("claims must not be null");
        assertThatThrownBy(() -> batches.finishAll(claims, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("result must not be null");
        assertThatThrownBy(() -> batches.finishAll(java.util.Arrays.asList(b1, null), "ok"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("claims[1] must not be null");
        assertThatThrownBy(() -> batches.finishAll(List.of(b2, b1, b2), "ok"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("claims must name each batch once; 'b2' is at 0 and 2");
        assertThatThrownBy(() -> batches.finishAll(Collections.nCopies(1001, b1), "ok"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("claims must hold at most 1000, held 1001");
        for (BatchClaim claim : claims) {
            assertThat(batches.state(claim.batchId())).get().satisfies(s -> {
                assertThat(s.status()).as("nothing half-written").isEqualTo("processing");
                assertThat(s.result()).isNull();
            });
        }
        assertThat(batches.finishAll(claims, "ok").allFinished()).isTrue();
    }
}
