package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.junit.jupiter.api.Test;

/**
 * A session that ends while the recipe's thread is busy: the rest of that step runs in the new session, so the nodes
 * it creates belong to the session the recipe finds on its next step. Those nodes are ours: forgetting them would
 * leave them standing (our session lives on) in front of every later node of their partitions, so the partition would
 * have no holder for as long as our client lives (the chaos campaign's partition 8, from t=12.4 s to the end).
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
        CountDownLatch inFirstAcquired = new CountDownLatch(1);
        CountDownLatch releaseFirstAcquired = new CountDownLatch(1);
        AtomicBoolean first = new AtomicBoolean(true);
        // Blocks the recipe's thread in the first acquired() (partition 0): the step that joins both partitions is
        // held between its two creates while the session is replaced under it.
        FencedPartitionListener blockingOnce = new FencedPartitionListener() {
            @Override
            public void acquired(int partition, FencingToken token) {
                a.acquired(partition, token);
                if (first.getAndSet(false)) {
                    inFirstAcquired.countDown();
                    await(releaseFirstAcquired);
                }
            }

            @Override
            public void lost(int partition, FencingToken token, LossCause cause) {
                a.lost(partition, token, cause);
            }
        };
        FencedPartitions memberA = closeLater(new FencedPartitions(clientA, PATH, "a", 2, blockingOnce));
        memberA.start();
        await(inFirstAcquired);

        clientA.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
        await(reconnectedAfterLoss);
        assertThat(clientA.getZookeeperClient().getZooKeeper().getSessionId()).isNotEqualTo(firstSession);
        releaseFirstAcquired.countDown(); // the step goes on in the new session: it creates its node of partition 1

        // The recipe saw the new session (it told the old one's loss of partition 0), then, once the server ended
        // the old session, joined again and took partition 0 back: it holds both, its steps since ran in the new one.
        a.await(
                "partition 0 lost with the old session and taken back, partition 1 held",
                r -> r.losses(LossCause.LOST).size() == 1 && r.held().keySet().equals(Set.of(0, 1)));
        memberA.close(); // leaves the group, its client stays open: every node of it must go

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
