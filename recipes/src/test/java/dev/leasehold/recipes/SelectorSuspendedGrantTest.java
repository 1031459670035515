package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * "Loss is immediate" holds for a grant Curator makes while SUSPENDED.
 *
 * <p>Timeline: Curator's mutex is acquired and the selector is held (Curator's own {@code debugLeadership*Latch}
 * hooks) before it calls our {@code takeLeadership}; the client is told Disconnected (Curator's SUSPENDED is
 * delivered); the selector is let go. Before the fix the work ran with a token while SUSPENDED (the token comes from
 * the create's Stat, no round trip), and nothing ever interrupted it. Now SUSPENDED takes the selector out of the
 * queue (its held attempt is interrupted, so that grant never reaches the work), and a grant that still finds the
 * connection down is given up; the selector queues again and leads once RECONNECTED.
 */
@Timeout(60)
class SelectorSuspendedGrantTest extends ZkTestCase {

    /** A CountDownLatch that reports its count-down, or an interrupted wait, as an event (when named). */
    private static final class ReportingLatch extends CountDownLatch {
        private final BlockingQueue<String> events;
        private final String countedDown;
        private final String interrupted;
        private final String entered;

        ReportingLatch(BlockingQueue<String> events, String countedDown, String interrupted) {
            this(events, countedDown, interrupted, null);
        }

        ReportingLatch(BlockingQueue<String> events, String countedDown, String interrupted, String entered) {
            super(1);
            this.events = events;
            this.countedDown = countedDown;
            this.interrupted = interrupted;
            this.entered = entered;
        }

        @Override
        public void countDown() {
            if (countedDown != null) {
                events.add(countedDown);
            }
            super.countDown();
        }

        @Override
        public void await() throws InterruptedException {
            if (entered != null) {
                events.add(entered);
            }
            try {
                super.await();
            } catch (InterruptedException e) {
                if (interrupted != null) {
                    events.add(interrupted);
                }
                throw e;
            }
        }
    }

    /** The session outlives the simulated disconnect by far: Curator must not declare it LOST meanwhile. */
    @Override
    int tickMs() {
        return Zk.LONG_TICK_MS;
    }

    @Test
    void aGrantWhileSuspendedNeverReachesTheWork() throws Exception {
        CuratorFramework client =
                closeLater(Zk.started(Zk.builder(server.getConnectString()).sessionTimeoutMs(Zk.LONG_SESSION_MS)));
        BlockingQueue<String> events = new LinkedBlockingQueue<>();
        BlockingQueue<FencingToken> grants = new LinkedBlockingQueue<>();
        client.getConnectionStateListenable().addListener((c, state) -> {
            if (state != ConnectionState.CONNECTED) { // the first connection may be reported after this is added
                events.add(state.name());
            }
        });
        CountDownLatch releaseWork = new CountDownLatch(1);
        toClose.push(releaseWork::countDown);
        FencedLeaderSelector selector = closeLater(new FencedLeaderSelector(client, "/app/suspended", "s", (c, t) -> {
            events.add("granted " + t.value() + (ElectionNodes.isConnected(client) ? "" : " while disconnected"));
            grants.add(t);
            releaseWork.await();
        }));
        selector.autoRequeue();
        LeaderSelector curators = field(selector, FencedLeaderSelector.class, "selector", LeaderSelector.class);
        CountDownLatch firstHold = new ReportingLatch(events, null, "hold interrupted", "holding");
        setDebugLatches(curators, new ReportingLatch(events, "acquired", null), firstHold);
        selector.start();
        assertThat(events.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("acquired");
        // Curator reads its hold hook after the acquire hook: swap the hooks only once it waits on the first hold
        // (swapped sooner, it held on the second one and its cancel went unseen: "acquired again" in .ci/run)
        assertThat(events.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("holding");
        CountDownLatch secondHold = new CountDownLatch(1);
        toClose.push(secondHold::countDown);
        setDebugLatches(curators, new ReportingLatch(events, "acquired again", null), secondHold);

        zooKeeperSays(client, Watcher.Event.KeeperState.Disconnected);
        // Curator holds the grant it made before the blip; SUSPENDED must cancel it. Our SUSPENDED listener and the
        // selector's run in no fixed order, so the two events come in either order. The hold is not released before
        // the cancel: released at once, it could race the cancel and let the grant run on, to be refused by the
        // selector's own check of the connection instead (also correct, but then this test would not see the cancel).
        List<String> next = new ArrayList<>();
        next.add(events.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS));
        next.add(events.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS));
        assertThat(next)
                .as("what follows a grant that Curator made while SUSPENDED")
                .containsExactlyInAnyOrder(ConnectionState.SUSPENDED.name(), "hold interrupted");
        firstHold.countDown();
        assertThat(selector.hasLeadership()).isFalse();
        zooKeeperSays(client, Watcher.Event.KeeperState.SyncConnected);
        assertThat(events.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS))
                .isEqualTo(ConnectionState.RECONNECTED.name());
        assertThat(events.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("acquired again");
        secondHold.countDown();
        FencingToken token = grants.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(token).isNotNull();
        assertThat(events.poll()).isEqualTo("granted " + token.value());
        assertThat(selector.currentToken()).contains(token);
    }

    /** A connection event as ZooKeeper's client delivers it (the socket itself stays up: a simulated blip). */
    static void zooKeeperSays(CuratorFramework client, Watcher.Event.KeeperState state) throws Exception {
        client.getZookeeperClient()
                .getZooKeeper()
                .getTestable()
                .queueEvent(new WatchedEvent(Watcher.Event.EventType.None, state, null));
    }

    /** Curator 5.9's LeaderSelector test hooks: counted down after the mutex's acquire, awaited before the grant. */
    private static void setDebugLatches(LeaderSelector selector, CountDownLatch acquired, CountDownLatch hold)
            throws ReflectiveOperationException {
        Field acquiredHook = LeaderSelector.class.getDeclaredField("debugLeadershipLatch");
        Field holdHook = LeaderSelector.class.getDeclaredField("debugLeadershipWaitLatch");
        acquiredHook.setAccessible(true);
        holdHook.setAccessible(true);
        acquiredHook.set(selector, acquired);
        holdHook.set(selector, hold);
    }

    private static <T> T field(Object owner, Class<?> type, String name, Class<T> fieldType)
            throws ReflectiveOperationException {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return fieldType.cast(field.get(owner));
    }
}
