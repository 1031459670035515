package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 41 item 3, for the latch: we never delete or release a node of ours before that grant's {@code
 * leadershipLost} returned, the session's end included.
 *
 * <p>Timeline: {@code a} leads, {@code b} follows; {@code a}'s session ends on the client only (the server keeps the
 * old session and its node for its 8 s); {@code a}'s listener blocks in {@code leadershipLost}.
 * Meanwhile {@code a}'s Curator latch reconnects with a new session, finds its old node (not of its session), and
 * asks to delete it and create another. While {@code a}'s loss has not returned, its old node stays and {@code b} is
 * not granted; once it returned, the node goes and {@code b} leads with a higher token.
 *
 * <p>Curator before 5.7.0 (CURATOR-696) does not re-create its node: on the new session it leads with the old one.
 * The recipe replaces that stuck latch about two seconds later (closing it asks for the old node's delete, the new
 * latch creates a node of the new session); this must happen while the listener still blocks, even when the
 * listener blocks the recipe's own thread, or the server's expiry of the old session (8 s here) would let {@code b}
 * lead before {@code a}'s loss returned. On 5.4.0 the first case failed so before the check got its own thread.
 */
@Timeout(120)
class LatchLossBeforeReleaseTest extends ZkTestCase {

    private static final String PATH = "/app/loss-before-release";

    /** The old session must outlive the whole blocked loss on the server. */
    @Override
    int tickMs() {
        return Zk.LONG_TICK_MS;
    }

    /** @param onExecutor whether the blocking listener runs on its own executor rather than the latch's thread */
    @ParameterizedTest(name = "listener on its own executor: {0}")
    @ValueSource(booleans = {false, true})
    void theOldNodeStaysAndNobodyElseLeadsUntilTheLossReturned(boolean onExecutor) throws Exception {
        CuratorFramework clientA =
                closeLater(Zk.started(Zk.builder(server.getConnectString()).sessionTimeoutMs(Zk.LONG_SESSION_MS)));
        CuratorFramework clientB =
                closeLater(Zk.started(Zk.builder(server.getConnectString()).sessionTimeoutMs(Zk.LONG_SESSION_MS)));
        BlockingQueue<String> history = new LinkedBlockingQueue<>();
        CountDownLatch lossEntered = new CountDownLatch(1);
        CountDownLatch releaseLoss = new CountDownLatch(1);
        FencedLeaderLatch a = closeLater(new FencedLeaderLatch(clientA, PATH, "a"));
        GrantRecorder aGrants = new GrantRecorder();
        a.addListener(aGrants);
        ExecutorService executor = Executors.newSingleThreadExecutor();
        toClose.push(executor::shutdownNow);
        FencedLeaderListener blocking = new FencedLeaderListener() {
            @Override
            public void leadershipAcquired(FencingToken token) {}

            @Override
            public void leadershipLost(FencingToken token, LossCause cause) {
                // LOST, or SUSPENDED if Curator's own report of the loss came first: the session's end either way
                lossEntered.countDown();
                try {
                    // stands for work that takes a while to stop; released by the test
                    releaseLoss.await(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                history.add("a lost " + token.value());
            }
        };
        if (onExecutor) {
            a.addListener(blocking, executor);
        } else {
            a.addListener(blocking);
        }
        a.start();
        FencingToken aToken = aGrants.nextAcquired();

        FencedLeaderLatch b = closeLater(new FencedLeaderLatch(clientB, PATH, "b"));
        BlockingQueue<FencingToken> bGrants = new LinkedBlockingQueue<>();
        b.addListener(new FencedLeaderListener() {
            @Override
            public void leadershipAcquired(FencingToken token) {
                history.add("b acquired " + token.value());
                bGrants.add(token);
            }
        });
        b.start();
        Zk.awaitChildren(observer, PATH, 2);

        expireOnClientOnly(clientA);
        try {
            assertAHoldsItsNodeUntilItsLossReturned(b, aToken, lossEntered, releaseLoss, bGrants, history, clientA);
        } finally {
            releaseLoss.countDown();
        }
    }

    private void assertAHoldsItsNodeUntilItsLossReturned(
            FencedLeaderLatch b,
            FencingToken aToken,
            CountDownLatch lossEntered,
            CountDownLatch releaseLoss,
            BlockingQueue<FencingToken> bGrants,
            BlockingQueue<String> history,
            CuratorFramework clientA)
            throws Exception {
        assertThat(lossEntered.await(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS))
                .as("a's listener told LOST")
                .isTrue();
        // a's latch, on its new session, has created its new node: the delete of the old one was asked before it
        awaitNodeOfSession(clientA);
        assertThat(observer.checkExists().forPath(aToken.path()))
                .as("a's old node, while a's loss has not returned")
                .isNotNull();
        assertThat(b.currentToken())
                .as("b's token while a's loss has not returned")
                .isEmpty();
        assertThat(history).isEmpty();

        releaseLoss.countDown();
        Zk.awaitDeleted(observer, aToken.path());
        FencingToken bToken = bGrants.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(bToken).as("b granted once a's loss returned").isNotNull();
        assertThat(bToken.value()).isGreaterThan(aToken.value());
        assertThat(List.copyOf(history)).containsExactly("a lost " + aToken.value(), "b acquired " + bToken.value());
    }

    /**
     * Ends the session on the client only: the connection is marked closed first, so neither Curator's close nor
     * anything else reaches the server, which keeps the old session (and its ephemeral nodes) until its own timeout.
     * ZooKeeper's {@code injectSessionExpiration()} alone queues the expiry before it marks the connection closed, so
     * Curator's close of the old handle can still reach the server and end the session at once.
     */
    static void expireOnClientOnly(CuratorFramework client) throws Exception {
        ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
        Field cnxnField = ZooKeeper.class.getDeclaredField("cnxn");
        cnxnField.setAccessible(true);
        Object cnxn = cnxnField.get(zk);
        Field state = cnxn.getClass().getDeclaredField("state");
        state.setAccessible(true);
        state.set(cnxn, ZooKeeper.States.CLOSED);
        zk.getTestable().injectSessionExpiration();
    }

    /** Waits, on watches, until a child of {@link #PATH} is owned by {@code client}'s current (new) session. */
    private void awaitNodeOfSession(CuratorFramework client) throws Exception {
        long deadline = System.nanoTime() + Zk.WAIT.toNanos();
        while (true) {
            CountDownLatch changed = new CountDownLatch(1);
            List<String> children = observer.getChildren()
                    .usingWatcher((Watcher) e -> changed.countDown())
                    .forPath(PATH);
            long session = client.getZookeeperClient().getZooKeeper().getSessionId();
            for (String child : children) {
                Stat stat;
                try {
                    stat = observer.checkExists().forPath(PATH + "/" + child);
                } catch (KeeperException.NoNodeException e) {
                    continue;
                }
                if (stat != null && session != 0 && stat.getEphemeralOwner() == session) {
                    return;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !changed.await(Math.min(left, TimeUnit.MILLISECONDS.toNanos(200)), TimeUnit.NANOSECONDS)) {
                if (System.nanoTime() - deadline >= 0) {
                    throw new AssertionError("no node of the client's new session under " + PATH);
                }
            }
        }
    }
}
