package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.testkit.Ensemble;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A 3-server ensemble whose quorum leader is killed: the new epoch shows in the high 32 bits of later tokens. */
@Timeout(120)
class QuorumLeaderChangeTest {

    private static final String PATH = "/cluster/leader";
    private static final int TICK_MS = 200;

    @Test
    void killingTheQuorumLeaderBumpsTheEpochAndTokensKeepIncreasing() throws Exception {
        List<InstanceSpec> specs = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            specs.add(new InstanceSpec(null, -1, -1, -1, true, id, TICK_MS, -1));
        }
        try (TestingCluster cluster = new TestingCluster(specs)) {
            cluster.start();
            try (CuratorFramework a =
                            Zk.started(Zk.builder(cluster.getConnectString()).sessionTimeoutMs(4_000));
                    CuratorFramework b =
                            Zk.started(Zk.builder(cluster.getConnectString()).sessionTimeoutMs(4_000));
                    CuratorFramework observer = Zk.client(cluster.getConnectString())) {
                GrantRecorder recA = new GrantRecorder();
                GrantRecorder recB = new GrantRecorder();
                FencedLeaderLatch latchA = new FencedLeaderLatch(a, PATH, "a");
                latchA.addListener(recA);
                latchA.start();
                FencingToken t1 = recA.nextAcquired();
                FencedLeaderLatch latchB = new FencedLeaderLatch(b, PATH, "b");
                latchB.addListener(recB);
                latchB.start();
                Zk.awaitChildren(observer, PATH, 2);

                InstanceSpec quorumLeader = null;
                for (InstanceSpec spec : cluster.getInstances()) {
                    if (Ensemble.isQuorumLeader(spec)) {
                        quorumLeader = spec;
                    }
                }
                assertThat(quorumLeader).as("one server says Mode: leader").isNotNull();
                assertThat(cluster.killServer(quorumLeader)).isTrue();

                // The ensemble elects a new quorum leader; A rejoins with a node created in the new epoch.
                latchA.close();
                FencingToken tB = recB.nextAcquired();
                FencedLeaderLatch latchA2 = new FencedLeaderLatch(a, PATH, "a");
                GrantRecorder recA2 = new GrantRecorder();
                latchA2.addListener(recA2);
                latchA2.start();
                Zk.awaitChildren(observer, PATH, 2);
                latchB.close();
                FencingToken t2 = recA2.nextAcquired();
                latchA2.close();

                assertThat(tB.value()).isGreaterThan(t1.value());
                assertThat(t2.value()).isGreaterThan(tB.value());
                assertThat(t2.epoch()).as("epoch of %s vs %s", t2, t1).isGreaterThan(t1.epoch());
                System.out.printf(
                        "quorum leader killed: token 0x%x (epoch %d) -> 0x%x (epoch %d)%n",
                        t1.value(), t1.epoch(), t2.value(), t2.epoch());
            }
        }
    }
}
