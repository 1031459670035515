package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 27: a leader that is alive (its session and node live on) but stuck (its work makes no progress) gives
 * leadership up when a progress deadline is set, and another participant leads; a leader that progresses keeps it.
 *
 * <p>Sessions here are long (8 s on a 500 ms tick): a stalled leader's node must go because it stalled, never because
 * its session expired on a loaded machine (with 1.5 s sessions b once led with a's withdrawal still empty).
 */
@Timeout(120)
class ProgressDeadlineTest extends ZkTestCase {

    private static final String LATCH_PATH = "/app/stuck-latch";
    private static final String SELECTOR_PATH = "/app/stuck-selector";
    private static final Duration SHORT = Duration.ofMillis(300);

    /** Every grant and loss, with its cause. */
    private static final class Causes implements FencedLeaderListener {
        record Event(boolean acquired, FencingToken token, LossCause cause) {}

        final BlockingQueue<Event> events = new LinkedBlockingQueue<>();

        @Override
        public void leadershipAcquired(FencingToken token) {
            events.add(new Event(true, token, null));
        }

        @Override
        public void leadershipLost(FencingToken token, LossCause cause) {
            events.add(new Event(false, token, cause));
        }

        Event next() throws InterruptedException {
            Event event = events.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(event).as("a leadership event within %s", Zk.WAIT).isNotNull();
            return event;
        }
    }

    @Override
    int tickMs() {
        return Zk.LONG_TICK_MS;
    }

    /** A client whose session outlives any pause of a loaded machine: only a stall can end a grant here. */
    private CuratorFramework client() throws InterruptedException {
        return closeLater(Zk.started(Zk.builder(server.getConnectString()).sessionTimeoutMs(Zk.LONG_SESSION_MS)));
    }

    private FencedLeaderLatch latch(String id, Duration deadline, Causes causes) throws Exception {
        CuratorFramework client = client();
        FencedLeaderLatch latch = new FencedLeaderLatch(client, LATCH_PATH, id);
        if (deadline != null) {
            latch.setProgressDeadline(deadline);
        }
        latch.addListener(causes);
        closeLater(latch);
        latch.start();
        return latch;
    }

    /**
     * Timeline: a leads (deadline 300 ms) and its work never calls progress(); b joins with no deadline. a's deadline
     * passes: a hears leadershipLost(STALLED), b leads with a higher token, and a waits behind b with a new node.
     */
    @Test
    void aStuckLatchLeaderGivesUpAndAnotherLeads() throws Exception {
        Causes a = new Causes();
        Causes b = new Causes();
        FencedLeaderLatch latchA = latch("a", SHORT, a);
        Causes.Event granted = a.next();
        assertThat(granted.acquired()).isTrue();
        FencedLeaderLatch latchB = latch("b", null, b);

        Causes.Event lost = a.next();
        assertThat(lost.acquired()).isFalse();
        assertThat(lost.token()).isEqualTo(granted.token());
        assertThat(lost.cause()).isEqualTo(LossCause.STALLED);

        Causes.Event bGranted = b.next();
        assertThat(bGranted.acquired()).isTrue();
        assertThat(bGranted.token().value()).isGreaterThan(granted.token().value());
        assertThat(latchB.currentToken()).contains(bGranted.token());
        assertThat(latchA.hasLeadership()).isFalse();
        assertThat(latchA.sinceProgress()).isEmpty();
        Zk.awaitChildren(observer, LATCH_PATH, 2); // a rejoined, behind b
        assertThat(latchA.currentLeader().orElseThrow().participantId()).isEqualTo("b");
    }

    /** A lone stalled leader rejoins and leads again, with a new node and so a higher token. */
    @Test
    void aLoneStalledLatchLeadsAgainWithAHigherToken() throws Exception {
        Causes a = new Causes();
        latch("a", SHORT, a);
        FencingToken first = a.next().token();
        Causes.Event lost = a.next();
        assertThat(lost.cause()).isEqualTo(LossCause.STALLED);
        Causes.Event again = a.next();
        assertThat(again.acquired()).isTrue();
        assertThat(again.token().value()).isGreaterThan(first.value());
    }

    /**
     * A leader whose work calls progress() every few milliseconds keeps leadership for several deadlines while a
     * follower waits. The work loop stands for real work: its short sleeps are the simulated work, not ordering.
     */
    @Test
    void aProgressingLatchLeaderNeverLoses() throws Exception {
        Duration deadline = Duration.ofSeconds(1);
        Causes a = new Causes();
        FencedLeaderLatch latchA = latch("a", deadline, a);
        FencingToken token = a.next().token();
        Causes b = new Causes();
        latch("b", deadline, b);
        Zk.awaitChildren(observer, LATCH_PATH, 2);

        long start = System.nanoTime();
        while (System.nanoTime() - start < 3 * deadline.toNanos()) {
            latchA.progress();
            assertThat(latchA.sinceProgress()).isPresent();
            Thread.sleep(10); // simulated work between two steps
        }

        assertThat(latchA.currentToken()).contains(token);
        assertThat(a.events).isEmpty();
        assertThat(b.events).isEmpty();
    }

    /** The selector's stuck work blocks on a lock it never gets (lock() ignores interrupts): the next one leads. */
    @Test
    void aStuckSelectorLeaderLosesItsNodeAndAnotherLeadsWhileTheWorkStillHangs() throws Exception {
        ReentrantLock neverFree = new ReentrantLock();
        neverFree.lock();
        BlockingQueue<FencingToken> grantsA = new LinkedBlockingQueue<>();
        CountDownLatch workAReturned = new CountDownLatch(1);
        CuratorFramework clientA = client();
        FencedLeaderSelector a = new FencedLeaderSelector(clientA, SELECTOR_PATH, "a", (c, token) -> {
            grantsA.add(token);
            if (grantsA.size() == 1) {
                neverFree.lock(); // stuck: not interruptible
                neverFree.unlock();
                workAReturned.countDown();
            }
        });
        a.setProgressDeadline(SHORT);
        a.autoRequeue();
        closeLater(a);
        a.start();
        FencingToken tokenA = grantsA.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(tokenA).isNotNull();

        BlockingQueue<FencingToken> grantsB = new LinkedBlockingQueue<>();
        CountDownLatch releaseB = new CountDownLatch(1);
        CuratorFramework clientB = client();
        FencedLeaderSelector b = closeLater(new FencedLeaderSelector(clientB, SELECTOR_PATH, "b", (c, token) -> {
            grantsB.add(token);
            releaseB.await();
        }));
        b.start();

        FencingToken tokenB = grantsB.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(tokenB).as("b leads while a's work still hangs").isNotNull();
        assertThat(tokenB.value()).isGreaterThan(tokenA.value());
        assertThat(workAReturned.getCount()).isEqualTo(1);
        assertThat(a.hasLeadership()).isFalse();
        assertThat(a.lastWithdrawal()).contains(LossCause.STALLED);

        neverFree.unlock(); // a's work wakes, returns, and a queues again behind b
        assertThat(workAReturned.await(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        Zk.awaitChildren(observer, SELECTOR_PATH, 2);
        assertThat(b.currentToken()).contains(tokenB);
        assertThat(a.currentLeader().orElseThrow().participantId()).isEqualTo("b");
        releaseB.countDown();
    }

    /** A selector whose work calls progress() keeps leadership for several deadlines; the follower waits. */
    @Test
    void aProgressingSelectorLeaderNeverLoses() throws Exception {
        Duration deadline = Duration.ofSeconds(1);
        BlockingQueue<FencingToken> grantsA = new LinkedBlockingQueue<>();
        CountDownLatch worked = new CountDownLatch(1);
        CuratorFramework clientA = client();
        FencedLeaderSelector[] self = new FencedLeaderSelector[1];
        FencedLeaderSelector a = new FencedLeaderSelector(clientA, SELECTOR_PATH, "a", (c, token) -> {
            grantsA.add(token);
            long start = System.nanoTime();
            while (System.nanoTime() - start < 3 * deadline.toNanos()) {
                self[0].progress();
                Thread.sleep(10); // simulated work between two steps
            }
            worked.countDown();
        });
        self[0] = a;
        a.setProgressDeadline(deadline);
        closeLater(a);
        a.start();
        FencingToken tokenA = grantsA.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(tokenA).isNotNull();
        BlockingQueue<FencingToken> grantsB = new LinkedBlockingQueue<>();
        CuratorFramework clientB = client();
        closeLater(new FencedLeaderSelector(clientB, SELECTOR_PATH, "b", (c, token) -> grantsB.add(token)))
                .start();
        Zk.awaitChildren(observer, SELECTOR_PATH, 2);

        assertThat(worked.await(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

        assertThat(a.lastWithdrawal()).isEmpty();
        assertThat(grantsA).isEmpty(); // one grant, never withdrawn
        assertThat(grantsB.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS))
                .as("b leads once a's work returned")
                .isNotNull();
    }

    @Test
    void aDeadlineOfZeroOrBelowOrAfterStartIsRefusedAndProgressOutsideLeadershipIsIgnored() throws Exception {
        CuratorFramework client = client();
        FencedLeaderLatch latch = closeLater(new FencedLeaderLatch(client, LATCH_PATH, "x"));
        assertThatThrownBy(() -> latch.setProgressDeadline(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("progressDeadline must be more than 0");
        assertThatThrownBy(() -> latch.setProgressDeadline(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> latch.setProgressDeadline(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> latch.setProgressDeadline(Duration.ofDays(2)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(latch.progressDeadline()).isEmpty();

        latch.progress(); // not leading: ignored
        assertThat(latch.sinceProgress()).isEmpty();

        FencedLeaderSelector selector =
                closeLater(new FencedLeaderSelector(client, SELECTOR_PATH, "y", (c, token) -> {}));
        assertThatThrownBy(() -> selector.setProgressDeadline(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        selector.progress();
        assertThat(selector.sinceProgress()).isEmpty();
        selector.start();
        assertThatThrownBy(() -> selector.setProgressDeadline(SHORT))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("before start()");
    }
}
