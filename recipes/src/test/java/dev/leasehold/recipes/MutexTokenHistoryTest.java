package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.testkit.Ensemble;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link FencedMutex} tokens keep rising where the lock node's sequence number does not: across the reaping of the
 * container parent, a ZooKeeper server restart, and a change of quorum leader.
 */
@Timeout(120)
class MutexTokenHistoryTest extends ZkTestCase {

    private static final String PATH = "/history/mutex";

    /** The parent is reaped between two holds: both nodes end in 0000000000, the second token is higher. */
    @Test
    void theTokenRisesWhereTheSequenceRestarts() throws Exception {
        FencedMutex mutex = closeLater(new FencedMutex(closeLater(Zk.client(server.getConnectString())), PATH, "a"));
        FencingToken first = mutex.acquire();
        mutex.release();
        Zk.awaitDeleted(observer, PATH); // the empty container parent is reaped

        FencingToken second = mutex.acquire();
        mutex.release();

        assertThat(first.path()).endsWith("lock-0000000000");
        assertThat(second.path()).endsWith("lock-0000000000");
        assertThat(second.value()).isGreaterThan(first.value());
    }

    /** The server restarts (its data kept) while a holds and b waits: b's token is higher than a's. */
    @Test
    void tokensRiseAcrossAServerRestart() throws Exception {
        CuratorFramework a = closeLater(Zk.client(server.getConnectString()));
        FencedMutex mutexA = closeLater(new FencedMutex(a, PATH, "a"));
        FencingToken tA = mutexA.acquire();
        mutexA.release();
        CountDownLatch reconnected = new CountDownLatch(1);
        a.getConnectionStateListenable().addListener((c, state) -> {
            if (state == ConnectionState.RECONNECTED) {
                reconnected.countDown();
            }
        });

        server.restart();
        assertThat(reconnected.await(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

        FencedMutex mutexB = closeLater(new FencedMutex(closeLater(Zk.client(server.getConnectString())), PATH, "b"));
        FencingToken tB = mutexB.acquire();
        mutexB.release();
        FencingToken tA2 = mutexA.acquire();
        mutexA.release();
        assertThat(tB.value()).isGreaterThan(tA.value());
        assertThat(tA2.value()).isGreaterThan(tB.value());
    }

    /** A 3-server ensemble whose quorum leader is killed while a holds: the next holder's token is in a new epoch. */
    @Test
    void killingTheQuorumLeaderBumpsTheEpochAndTokensKeepRising() throws Exception {
        List<InstanceSpec> specs = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            specs.add(new InstanceSpec(null, -1, -1, -1, true, id, 200, -1));
        }
        try (TestingCluster cluster = new TestingCluster(specs)) {
            cluster.start();
            try (CuratorFramework a =
                            Zk.started(Zk.builder(cluster.getConnectString()).sessionTimeoutMs(4_000));
                    CuratorFramework b =
                            Zk.started(Zk.builder(cluster.getConnectString()).sessionTimeoutMs(4_000));
                    CuratorFramework watcher = Zk.client(cluster.getConnectString());
                    FencedMutex mutexA = new FencedMutex(a, PATH, "a");
                    MutexHolder holderB = new MutexHolder(new FencedMutex(b, PATH, "b"))) {
                FencingToken t1 = mutexA.acquire();
                Future<FencingToken> bWaits = holderB.acquire();
                Zk.awaitChildren(watcher, PATH, 2);
                InstanceSpec quorumLeader = null;
                for (InstanceSpec spec : cluster.getInstances()) {
                    if (Ensemble.isQuorumLeader(spec)) {
                        quorumLeader = spec;
                    }
                }
                assertThat(quorumLeader).as("one server says Mode: leader").isNotNull();

                assertThat(cluster.killServer(quorumLeader)).isTrue();
                mutexA.release(); // its loss (SUSPENDED) or not, the release deletes a's node once connected
                FencingToken tB = bWaits.get(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
                Future<FencingToken> aWaits = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        FencingToken token = mutexA.acquire();
                        mutexA.release();
                        return token;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                Zk.awaitChildren(watcher, PATH, 2);
                holderB.release();
                FencingToken t2 = aWaits.get(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);

                assertThat(tB.value()).isGreaterThan(t1.value());
                assertThat(t2.value()).isGreaterThan(tB.value());
                assertThat(t2.epoch()).as("epoch of %s vs %s", t2, t1).isGreaterThan(t1.epoch());
                System.out.printf(
                        "quorum leader killed: mutex token 0x%x (epoch %d) -> 0x%x (epoch %d)%n",
                        t1.value(), t1.epoch(), t2.value(), t2.epoch());
            }
        }
    }
}
