package dev.leasehold.store.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.store.FencedSchema;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link LeaseElection#close()} returns once the listener calls queued before it have run. Found by a CI rehearsal:
 * micrometer's {@code LeaseMetersTest} saw no stalled loss counted after close. Its own listener had heard
 * {@code lost(STALLED)}, the meters' listener was next on the event thread, and close, with no grant left to end,
 * returned at once. A user who reads a listener's state after close (a metric, a flag) must see every call made.
 * And the release that follows those calls was dropped: close had already shut the loop down, so followers waited
 * for the lease to run out (found in review).
 */
@Timeout(60)
class CloseAfterQueuedListenersTest {

    @Test
    void closeWaitsForAStalledLossStillBeingToldToTheLaterListeners() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:close-after-listeners;DB_CLOSE_DELAY=-1");
        FencedSchema.install(h2);
        CountDownLatch acquired = new CountDownLatch(1);
        CountDownLatch firstToldStalled = new CountDownLatch(1);
        AtomicBoolean secondToldStalled = new AtomicBoolean();
        LeaseListener first = new LeaseListener() {
            @Override
            public void acquired(long token) {
                acquired.countDown();
            }

            @Override
            public void lost(long token, LeaseLoss cause) {
                if (cause == LeaseLoss.STALLED) {
                    firstToldStalled.countDown();
                    try {
                        Thread.sleep(300); // a slow listener (simulated): the next one is told after it
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        };
        LeaseElection election =
                new LeaseElection(h2, "close-after-listeners", "a", LeaseTiming.ofMillis(3000, 2000, 100), first);
        election.setProgressDeadline(Duration.ofMillis(400));
        election.addListener(new LeaseListener() {
            @Override
            public void acquired(long token) {}

            @Override
            public void lost(long token, LeaseLoss cause) {
                if (cause == LeaseLoss.STALLED) {
                    secondToldStalled.set(true);
                }
            }
        });
        try {
            election.start();
            assertThat(acquired.await(20, TimeUnit.SECONDS)).isTrue();
            assertThat(firstToldStalled.await(20, TimeUnit.SECONDS)).isTrue();
        } finally {
            election.close();
        }
        assertThat(secondToldStalled)
                .as("the second listener was told of the stalled loss before close returned")
                .isTrue();
        assertThat(election.currentHolder())
                .as("the stalled grant was released after its lost() calls, though close came during them")
                .isEmpty();
    }
}
