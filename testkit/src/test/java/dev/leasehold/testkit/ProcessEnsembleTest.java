package dev.leasehold.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryForever;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three server processes of Debian's ZooKeeper: the quorum survives the kill -9 of its leader and elects another,
 * which {@code srvr} finds; a frozen server stops answering and serves again when thawed; close leaves no process.
 * Skipped (with how to install the package) where the package is absent; {@link ZooKeeperPackage#ENV} set, as in
 * CI, makes its absence a failure.
 */
@Timeout(180)
class ProcessEnsembleTest {

    private static ZooKeeperPackage installed() {
        Optional<ZooKeeperPackage> zooKeeper = ZooKeeperPackage.require();
        assumeTrue(zooKeeper.isPresent(), ZooKeeperPackage.HINT);
        return zooKeeper.get();
    }

    @Test
    void killingTheQuorumLeaderElectsAnotherThatSrvrFinds() throws Exception {
        ZooKeeperPackage zooKeeper = installed();
        List<ProcessHandle> servers;
        try (ProcessEnsemble ensemble = ProcessEnsemble.start(zooKeeper, 3, 100);
                CuratorFramework client = CuratorFrameworkFactory.builder()
                        .connectString(ensemble.connectString())
                        .sessionTimeoutMs(4_000)
                        .connectionTimeoutMs(2_000)
                        .retryPolicy(new RetryForever(100))
                        .build()) {
            servers = ProcessHandle.current()
                    .children()
                    .filter(ProcessHandle::isAlive)
                    .toList();
            assertThat(ensemble.connectString())
                    .matches("127\\.0\\.0\\.1:\\d+,127\\.0\\.0\\.1:\\d+,127\\.0\\.0\\.1:\\d+");
            ProcessEnsemble.Server first = ensemble.awaitQuorum(Duration.ofSeconds(30));
            assertThat(ensemble.servers().stream().map(s -> ensemble.mode(s.id())))
                    .containsExactlyInAnyOrder("leader", "follower", "follower");
            client.start();
            assertThat(client.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
            Stat before = new Stat();
            client.create()
                    .storingStatIn(before)
                    .withMode(CreateMode.PERSISTENT)
                    .forPath("/before");

            ensemble.kill(first.id()); // kill -9
            assertThat(ensemble.running(first.id())).isFalse();
            assertThat(ensemble.mode(first.id())).isEqualTo("down");
            ProcessEnsemble.Server next = ensemble.awaitQuorum(Duration.ofSeconds(30));
            assertThat(next.id()).isNotEqualTo(first.id());
            assertThat(ensemble.mode(next.id())).isEqualTo("leader");
            Stat after = new Stat();
            client.create().storingStatIn(after).forPath("/after");
            assertThat(after.getCzxid() >>> 32)
                    .as("a new quorum leader starts a new epoch")
                    .isGreaterThan(before.getCzxid() >>> 32);

            ensemble.start(first.id()); // on its own data: it rejoins as a follower
            ensemble.awaitQuorum(Duration.ofSeconds(30));
            assertThat(ensemble.mode(first.id())).isEqualTo("follower");

            ProcessEnsemble.Server follower = ensemble.servers().stream()
                    .filter(s -> s.id() != next.id())
                    .findFirst()
                    .orElseThrow();
            ensemble.freeze(follower.id()); // kill -STOP
            assertThat(ensemble.answers(follower.id())).isFalse();
            assertThat(ensemble.mode(follower.id())).isEqualTo("down");
            ensemble.thaw(follower.id()); // kill -CONT
            ensemble.awaitQuorum(Duration.ofSeconds(30));
            assertThat(ensemble.answers(follower.id())).isTrue();

            ensemble.stop(next.id()); // SIGTERM: the quorum leader leaves gracefully
            assertThat(ensemble.awaitQuorum(Duration.ofSeconds(30)).id()).isNotEqualTo(next.id());
            assertThat(client.checkExists().forPath("/after")).isNotNull();
            assertThatThrownBy(() -> ensemble.start(first.id())).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> ensemble.kill(4)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(servers).hasSizeGreaterThanOrEqualTo(3);
        assertThat(servers).as("no server process outlives close()").noneMatch(ProcessHandle::isAlive);
    }

    @Test
    void badSizesAndTicksAreRefusedBeforeAnythingStarts() {
        ZooKeeperPackage zooKeeper = installed();
        assertThatThrownBy(() -> ProcessEnsemble.start(zooKeeper, 0, 100))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 to 7 servers");
        assertThatThrownBy(() -> ProcessEnsemble.start(zooKeeper, 3, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tick of 10 to 10,000 ms");
    }
}
