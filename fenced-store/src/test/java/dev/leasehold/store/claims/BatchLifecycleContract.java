package dev.leasehold.store.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.StoreException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Batches that fail (issue 10): {@code fail} counts the attempt and puts the batch back, or marks it failed after the
 * last attempt; an expired lease is an attempt too; a stale claim cannot fail a batch; {@code stats} counts every
 * state. Run against every database (see the subclasses).
 */
@Timeout(60)
abstract class BatchLifecycleContract {

    /** A lease short enough to let expire in a test, and the pause that outlasts it. */
    static final Duration SHORT_LEASE = Duration.ofMillis(50);

    static final long PAUSE_MS = 150;

    protected abstract DataSource dataSource();

    private DataSource ds;
    private BatchClaims batches;

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

    @Test
    void aFailedAttemptGoesBackToPendingAndTheLastAttemptFailsTheBatchForGood() {
        batches.enqueue("poison", "p");
        for (int attempt = 1; attempt <= 3; attempt++) {
            BatchClaim claim = batches.claimNext("w", Duration.ofSeconds(30)).orElseThrow();
            assertThat(claim.batchId()).isEqualTo("poison");
            assertThat(claim.attempt()).isEqualTo(attempt);
            assertThat(claim.fence()).isEqualTo(attempt);
            assertThat(batches.state("poison"))
                    .get()
                    .extracting(BatchState::leaseUntil)
                    .isEqualTo(claim.leaseUntil());
            assertThat(batches.fail(claim, "boom " + attempt)).isTrue();
            assertThat(batches.fail(claim, "twice")).as("a claim fails once").isFalse();
        }
        assertThat(batches.state("poison")).get().satisfies(s -> {
            assertThat(s.status()).isEqualTo("failed");
            assertThat(s.attempts()).isEqualTo(3);
            assertThat(s.error()).isEqualTo("boom 3");
            assertThat(s.leaseUntil()).isNull();
        });
        assertThat(batches.claimNext("w", Duration.ofSeconds(30)))
                .as("a failed batch is never claimed")
                .isEmpty();
    }

    @Test
    void aFailedAttemptBeforeTheLastLeavesTheBatchPendingWithItsError() {
        batches.enqueue("b", "p");
        BatchClaim claim = batches.claimNext("w", Duration.ofSeconds(30)).orElseThrow();
        assertThat(batches.fail(claim, "timeout talking to the bank")).isTrue();
        assertThat(batches.state("b")).get().satisfies(s -> {
            assertThat(s.status()).isEqualTo("pending");
            assertThat(s.attempts()).isEqualTo(1);
            assertThat(s.error()).isEqualTo("timeout talking to the bank");
        });
        BatchClaim again = batches.claimNext("w2", Duration.ofSeconds(30)).orElseThrow();
        assertThat(again.attempt()).isEqualTo(2);
        assertThat(batches.finish(again, "ok")).isTrue();
        assertThat(batches.fail(again, "after finish"))
                .as("a finished batch cannot fail")
                .isFalse();
        assertThat(batches.state("b")).get().extracting(BatchState::status).isEqualTo("done");
    }

    /** Timeline: A claims (fence 1) and pauses past its lease; B claims (fence 2); A's fail changes nothing. */
    @Test
    void aStaleClaimCannotFailTheBatch() throws InterruptedException {
        batches.enqueue("b", "p");
        BatchClaim a = batches.claimNext("pod-A", SHORT_LEASE).orElseThrow();
        Thread.sleep(PAUSE_MS); // stands for A's pause, longer than its lease
        BatchClaim b = batches.claimNext("pod-B", Duration.ofSeconds(30)).orElseThrow();
        assertThat(b.fence()).isEqualTo(2);
        assertThat(b.attempt()).as("the expired lease counted").isEqualTo(2);

        assertThat(batches.fail(a, "A's late failure")).isFalse();

        assertThat(batches.state("b")).get().satisfies(s -> {
            assertThat(s.status()).isEqualTo("processing");
            assertThat(s.owner()).isEqualTo("pod-B");
            assertThat(s.error()).isNull();
        });
    }

    /** maxAttempts 3: two leases expire, the third claim's lease expires too: the next claim fails the batch. */
    @Test
    void anExpiredLeaseCountsAsAnAttemptAndTheLastOneExpiringFailsTheBatch() throws InterruptedException {
        batches.enqueue("silent", "p");
        batches.enqueue("next", "p");
        for (int attempt = 1; attempt <= 3; attempt++) {
            BatchClaim claim = batches.claimNext("crashing", SHORT_LEASE).orElseThrow();
            assertThat(claim.batchId()).as("expired leases first").isEqualTo("silent");
            assertThat(claim.attempt()).isEqualTo(attempt);
            Thread.sleep(PAUSE_MS); // stands for the claimer crashing: silent longer than its lease
        }
        BatchClaim next = batches.claimNext("w", Duration.ofSeconds(30)).orElseThrow();

        assertThat(next.batchId()).isEqualTo("next");
        assertThat(batches.state("silent")).get().satisfies(s -> {
            assertThat(s.status()).isEqualTo("failed");
            assertThat(s.attempts()).isEqualTo(3);
            assertThat(s.error()).contains("lease of attempt 3 ended");
        });
    }

    @Test
    void anExpiredLeaseIsClaimedBeforeOlderPendingBatches() throws InterruptedException {
        batches.enqueue("first", "p");
        batches.enqueue("second", "p");
        batches.enqueue("third", "p");
        batches.claimNext("w", Duration.ofSeconds(30)).orElseThrow(); // first: running
        BatchClaim second = batches.claimNext("crashing", SHORT_LEASE).orElseThrow();
        Thread.sleep(PAUSE_MS); // stands for the claimer of "second" crashing
        assertThat(batches.claimNext("w", Duration.ofSeconds(30)))
                .get()
                .extracting(BatchClaim::batchId)
                .isEqualTo(second.batchId());
        assertThat(batches.claimNext("w", Duration.ofSeconds(30)))
                .get()
                .extracting(BatchClaim::batchId)
                .isEqualTo("third");
    }

    @Test
    void statsCountEveryStateAndTheAgeOfTheOldestPendingBatch() throws InterruptedException {
        assertThat(batches.stats()).isEqualTo(new BatchStats(0, 0, 0, 0, 0, java.util.Optional.empty()));
        for (String id : new String[] {"done", "failed", "running", "expired", "pending-1", "pending-2"}) {
            batches.enqueue(id, "p");
        }
        BatchClaims once = new BatchClaims(ds, StoreConfig.defaults().withMaxAttempts(1));
        assertThat(batches.finish(batches.claimNext("w", Duration.ofSeconds(30)).orElseThrow(), "ok"))
                .isTrue();
        assertThat(once.fail(once.claimNext("w", Duration.ofSeconds(30)).orElseThrow(), "no"))
                .isTrue();
        assertThat(batches.claimNext("w", Duration.ofSeconds(30)))
                .get()
                .extracting(BatchClaim::batchId)
                .isEqualTo("running");
        assertThat(batches.claimNext("w", SHORT_LEASE))
                .get()
                .extracting(BatchClaim::batchId)
                .isEqualTo("expired");
        Thread.sleep(PAUSE_MS); // stands for a claimer that went silent past its lease

        BatchStats stats = batches.stats();

        assertThat(stats)
                .usingRecursiveComparison()
                .ignoringFields("oldestPendingAge")
                .isEqualTo(new BatchStats(2, 1, 1, 1, 1, java.util.Optional.empty()));
        assertThat(stats.oldestPendingAge()).get().satisfies(age -> assertThat(age)
                .as("pending since before the pause")
                .isGreaterThanOrEqualTo(Duration.ofMillis(100)));
    }

    /**
     * Issue 21, defect 4: every statement that finishes, fails or renews a claim keeps the configured lock timeout.
     * Another connection holds the batch's row (SELECT ... FOR UPDATE in an open transaction); with a 500 ms lock
     * timeout (1 s on MariaDB, which counts seconds) each statement must fail with a StoreException; the test allows
     * 5 s each (10 lock timeouts, half the 10 s session lock_timeout of the PostgreSQL test databases). On main,
     * finishAll on PostgreSQL waited for the session's 10 s: its statement went without the store's settings.
     */
    @Test
    void everyStatementOnALockedBatchFailsWithinTheLockTimeout() throws SQLException {
        BatchClaims impatient =
                new BatchClaims(ds, StoreConfig.defaults().withMaxAttempts(3).withLockTimeout(Duration.ofMillis(500)));
        impatient.enqueue("locked", "p");
        BatchClaim claim = impatient.claimNext("w", Duration.ofSeconds(30)).orElseThrow();
        try (Connection holder = ds.getConnection()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.executeQuery("SELECT id FROM leasehold_batches WHERE id = 'locked' FOR UPDATE")
                        .close();
            }
            try {
                failsWithinTenLockTimeouts("finish", () -> impatient.finish(claim, "r"));
                failsWithinTenLockTimeouts("finishAll", () -> impatient.finishAll(List.of(claim), "r"));
                failsWithinTenLockTimeouts("fail", () -> impatient.fail(claim, "e"));
                failsWithinTenLockTimeouts("renew", () -> impatient.renew(claim, Duration.ofSeconds(30)));
            } finally {
                holder.rollback();
            }
        }
        assertThat(impatient.finishAll(List.of(claim), "r").finished())
                .as("once the row is free, the claim finishes")
                .containsExactly(claim);
    }

    /** Asserts that {@code call} fails with a StoreException, preempting it if it still waits after 5 s. */
    private static void failsWithinTenLockTimeouts(
            String what, org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        assertTimeoutPreemptively(
                Duration.ofSeconds(5),
                () -> assertThatThrownBy(call).as(what).isInstanceOf(StoreException.class),
                what + " still waited for the locked row after 5 s (10 lock timeouts)");
    }

    @Test
    void badInputIsRejectedAndNothingIsWritten() {
        batches.enqueue("b", "p");
        BatchClaim claim = batches.claimNext("w", Duration.ofSeconds(30)).orElseThrow();
        assertThatThrownBy(() -> batches.fail(null, "e"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("claim must not be null");
        assertThatThrownBy(() -> batches.fail(claim, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("error must not be null");
        assertThatThrownBy(() -> batches.purgeFinished(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> batches.purgeFinished(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("zero or positive");
        assertThatThrownBy(() -> batches.purgeFinished(Duration.ofNanos(10)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("whole milliseconds");
        assertThatThrownBy(() -> StoreConfig.defaults().withMaxAttempts(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxAttempts must be between 1 and 1000, was 0");
        assertThatThrownBy(() -> StoreConfig.defaults().withPurgeChunk(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("purgeChunk");
        assertThatThrownBy(() -> StoreConfig.defaults().withSweepLimit(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sweepLimit");
        assertThat(batches.state("b")).get().satisfies(s -> {
            assertThat(s.status()).isEqualTo("processing");
            assertThat(s.error()).isNull();
        });
    }
}
