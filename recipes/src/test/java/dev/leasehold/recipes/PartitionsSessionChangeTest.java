package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SortedSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/**
 * A session that ends while the recipe's thread is busy: the rest of that step runs in the new session, so the nodes
 * it creates belong to the session the recipe finds on its next step. Those nodes are ours: forgetting them would
 * leave them standing (our session lives on) in front of every later node of their partitions, so the partition would
 * have no holder for as long as our client lives (the likely cause of the chaos campaign's partition 8 without an owner
 * from t=12.4 s to the end of its run).
 */
class PartitionsSessionChangeTest extends ZkTestCase {

    static final String PATH = "/orders/partitions";

    final PartitionRecorder.Holders holders = new PartitionRecorder.Holders();

    @Test
    void aNodeCreatedInTheNewSessionDuringAStepIsKeptAndReleasedOnClose() throws Exception {
        CuratorFramework clientA = closeLater(Zk.client(server.getConnectString()));
        long firstSession = clientA.getZookeeperClient().getZooKeeper().getSessionId();
        CountDownLatch reconnectedAfterLoss = new CountDownLatch(1);
        AtomicBoolean lostSeen = new AtomicBoolean();
        clientA.getConnectionStateListenable().addListener((c, state) -> {
            if (state == ConnectionState.LOST) {
                lostSeen.set(true);
            } else if (state == ConnectionState.RECONNECTED && lostSeen.get()) {
                reconnectedAfterLoss.countDown();
            }
        });
        PartitionRecorder a = new PartitionRecorder("a", holders);
        CountDownLatch inFirstRebalance = new CountDownLatch(1);
        CountDownLatch releaseFirstRebalance = new CountDownLatch(1);
        AtomicBoolean first = new AtomicBoolean(true);
        // Holds the recipe's thread in its first step, after it wrote the target and before it creates its nodes,
        // while the session is replaced under it.
        FencedPartitionListener blockingOnce = new FencedPartitionListener() {
            @Override
            public void acquired(int partition, FencingToken token) {
                a.acquired(partition, token);
            }

            @Override
            public void lost(int partition, FencingToken token, LossCause cause) {
                a.lost(partition, token, cause);
            }

            @Override
            public void rebalanced(int members, SortedSet<Integer> target) {
                if (first.getAndSet(false)) {
                    inFirstRebalance.countDown();
                    await(releaseFirstRebalance);
                }
            }
        };
        FencedPartitions memberA = closeLater(new FencedPartitions(clientA, PATH, "a", 2, blockingOnce));
        memberA.start();
        await(inFirstRebalance);

        clientA.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
        await(reconnectedAfterLoss);
        long secondSession = clientA.getZookeeperClient().getZooKeeper().getSessionId();
        assertThat(secondSession).isNotEqualTo(firstSession);
        releaseFirstRebalance.countDown(); // the step goes on in the new session: it creates its nodes there
        a.awaitHeld(2);

        // The next step sees the new session; a later one (once the server ended the old session and its member
        // node) makes our member node again and then runs the rest of its reconcile before anything else.
        awaitMemberOf(PATH + "/members/a", secondSession);
        memberA.close(); // queued behind that step; its client stays open: every node of ours must go

        CuratorFramework clientB = closeLater(Zk.client(server.getConnectString()));
        PartitionRecorder b = new PartitionRecorder("b", holders);
        closeLater(new FencedPartitions(clientB, PATH, "b", 2, b)).start();
        b.awaitHeld(2); // a node of a's left behind would stand in front of b's for as long as a's client lives
        for (int p = 0; p < 2; p++) {
            assertThat(observer.getChildren().forPath(PATH + "/partitions/" + p))
                    .hasSize(1);
        }
        assertThat(holders.violations).isEmpty();
    }

    /** Waits, on watch events (no polling), until {@code path} exists and belongs to {@code session}. */
    private void awaitMemberOf(String path, long session) throws Exception {
        long deadline = System.nanoTime() + Zk.WAIT.toNanos();
        while (true) {
            CountDownLatch changed = new CountDownLatch(1);
            Stat stat = observer.checkExists()
                    .usingWatcher((Watcher) e -> changed.countDown())
                    .forPath(path);
            if (stat != null && stat.getEphemeralOwner() == session) {
                return;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !changed.await(left, TimeUnit.NANOSECONDS)) {
                throw new AssertionError(path + " not made by session 0x" + Long.toHexString(session));
            }
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("not within " + Zk.WAIT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
