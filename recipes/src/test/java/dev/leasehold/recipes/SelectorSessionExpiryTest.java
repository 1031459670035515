package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Curator's own {@code TestLeaderSelector.testKillSessionThenCloseShouldElectNewLeader}, re-expressed through our API
 * (the scenario, not Curator's code): the contract users of LeaderSelector already rely on.
 *
 * <p>Timeline: two selectors share one client (so one session); one leads and holds its work; the client's session
 * expires (client-side injection); the leader's work is interrupted; both selectors leave the queue, so {@code
 * requeue()} puts each back; one leads; it is closed; the other takes over. Never two works at once.
 */
@Timeout(120)
class SelectorSessionExpiryTest extends ZkTestCase {

    private static final String PATH = "/app/expiry";

    /** As in Curator's test, the server keeps the expired session (and its nodes) well beyond the scenario. */
    @Override
    int tickMs() {
        return Zk.LONG_TICK_MS;
    }

    /** Work that counts who runs, reports its grant, and holds leadership until interrupted. */
    private static final class CountedWork implements FencedLeaderSelectorListener {
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger mostAtOnce = new AtomicInteger();
        final BlockingQueue<FencingToken> grants = new LinkedBlockingQueue<>();
        final CountDownLatch interrupted = new CountDownLatch(1);

        @Override
        public void takeLeadership(CuratorFramework client, FencingToken token) {
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                grants.add(token);
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                interrupted.countDown();
            } finally {
                running.decrementAndGet();
            }
        }

        FencingToken nextGrant() throws InterruptedException {
            FencingToken token = grants.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(token).as("a grant within %s", Zk.WAIT).isNotNull();
            return token;
        }
    }

    @Test
    void killSessionThenCloseShouldElectNewLeader() throws Exception {
        CuratorFramework client =
                closeLater(Zk.started(Zk.builder(server.getConnectString()).sessionTimeoutMs(Zk.LONG_SESSION_MS)));
        CountedWork work = new CountedWork();
        FencedLeaderSelector one = closeLater(new FencedLeaderSelector(client, PATH, "one", work));
        FencedLeaderSelector two = closeLater(new FencedLeaderSelector(client, PATH, "two", work));
        one.start();
        two.start();
        FencingToken first = work.nextGrant();
        Zk.awaitChildren(observer, PATH, 2); // the other selector is queued behind the leader

        client.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
        assertThat(work.interrupted.await(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS))
                .as("the leader's work interrupted by the session's expiry")
                .isTrue();

        // Curator's test gives the selectors "a bit" to leave the queue; here: until each requeue() succeeds.
        assertThat(requeuedWithin(one))
                .as("one left the queue and was requeued")
                .isTrue();
        assertThat(requeuedWithin(two))
                .as("two left the queue and was requeued")
                .isTrue();

        FencingToken second = work.nextGrant();
        assertThat(second.value()).isGreaterThan(first.value());
        FencedLeaderSelector leader = one.hasLeadership() ? one : two;
        FencedLeaderSelector other = leader == one ? two : one;
        assertThat(leader.currentToken()).contains(second);
        assertThat(work.running.get()).isEqualTo(1);

        leader.close();
        FencingToken third = work.nextGrant();
        assertThat(third.participantId()).isEqualTo(other.participantId());
        assertThat(third.value()).isGreaterThan(second.value());
        assertThat(other.currentToken()).contains(third);
        assertThat(work.mostAtOnce.get()).as("works running at once").isEqualTo(1);
    }

    /**
     * {@code requeue()} is {@code false} while the selector is still queued: ask again until it is {@code true}, or
     * {@link Zk#WAIT} has passed. Polls a state Curator exposes no event for; a short pause between asks.
     */
    private static boolean requeuedWithin(FencedLeaderSelector selector) {
        long deadline = System.nanoTime() + Zk.WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (selector.requeue()) {
                return true;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        return false;
    }
}
