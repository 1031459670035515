package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/**
 * Restarts, reconnects and refusals at the door; ticks of 1 s and sessions of 20 s, so that a restart keeps them even
 * on a machine under heavy load (with 8 s sessions a load average of 28 once made the restart outlast the session).
 */
class PartitionsFaultsTest extends ZkTestCase {

    static final String PATH = "/jobs/partitions";

    final PartitionRecorder.Holders holders = new PartitionRecorder.Holders();

    private static final int TICK_MS = 1_000;
    private static final int SESSION_MS = 20_000;

    @Override
    int tickMs() {
        return TICK_MS;
    }

    CuratorFramework longSessionClient() throws InterruptedException {
        return closeLater(Zk.started(Zk.builder(server.getConnectString())
                .sessionTimeoutMs(SESSION_MS)
                .connectionTimeoutMs(SESSION_MS)));
    }

    PartitionRecorder start(CuratorFramework client, String id, int partitions) throws Exception {
        PartitionRecorder recorder = new PartitionRecorder(id, holders);
        closeLater(new FencedPartitions(client, PATH, id, partitions, recorder)).start();
        return recorder;
    }

    /** ZooKeeper restarts within the session: every partition is lost as SUSPENDED, then comes back, same tokens. */
    @Test
    void aZooKeeperRestartWithinTheSessionGivesTheSameTokensBack() throws Exception {
        PartitionRecorder a = start(longSessionClient(), "a", 6);
        PartitionRecorder b = start(longSessionClient(), "b", 6);
        a.awaitHeld(3);
        b.awaitHeld(3);
        Map<Integer, FencingToken> aBefore = a.held();
        Map<Integer, FencingToken> bBefore = b.held();

        server.stop();
        a.await("all suspended", r -> r.losses(LossCause.SUSPENDED).size() == 3);
        b.await("all suspended", r -> r.losses(LossCause.SUSPENDED).size() == 3);
        server.restart();

        a.await("the same three back", r -> r.held().equals(aBefore));
        b.await("the same three back", r -> r.held().equals(bBefore));
        assertThat(holders.violations).isEmpty();
    }

    @Test
    void aDuplicateLiveIdIsRefusedAtStartAndLeavesNothingBehind() throws Exception {
        start(longSessionClient(), "same", 4).awaitHeld(4);
        CuratorFramework other = longSessionClient();
        FencedPartitions duplicate =
                closeLater(new FencedPartitions(other, PATH, "same", 4, new PartitionRecorder("dup", holders)));
        assertThatThrownBy(duplicate::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("a live member with id 'same'")
                .hasMessageContaining("unique");
        assertThat(observer.getChildren().forPath(PATH + "/members")).containsExactly("same");
        assertThatThrownBy(duplicate::start).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aMemberWithAnotherPartitionCountIsRefusedAtStart() throws Exception {
        start(longSessionClient(), "a", 4).awaitHeld(4);
        FencedPartitions other = closeLater(
                new FencedPartitions(longSessionClient(), PATH, "b", 5, new PartitionRecorder("b", holders)));
        assertThatThrownBy(other::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has 4 partitions, this member was given 5");
        assertThat(observer.getChildren().forPath(PATH + "/members")).containsExactly("a");
    }

    @Test
    void badArgumentsAreRefusedBeforeAnythingIsWritten() throws Exception {
        CuratorFramework client = longSessionClient();
        FencedPartitionListener none = new PartitionRecorder("x", holders);
        for (int bad : List.of(0, -1, 10_001)) {
            assertThatThrownBy(() -> new FencedPartitions(client, PATH, "x", bad, none))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("partitionCount must be from 1 to 10000, was " + bad);
        }
        for (String bad : new String[] {null, "", "  ", "a/b", "tab\there", ".", "..", "x".repeat(201)}) {
            assertThatThrownBy(() -> new FencedPartitions(client, PATH, bad, 4, none))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("memberId");
        }
        assertThatThrownBy(() -> new FencedPartitions(client, "no-slash", "x", 4, none))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("path");
        assertThatThrownBy(() -> new FencedPartitions(client, PATH, "x", 4, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("listener");
        assertThatThrownBy(() -> new FencedPartitions(null, PATH, "x", 4, none))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("client");
        new FencedPartitions(client, PATH, "x", 10_000, none).close(); // the bounds are allowed; never started
        assertThat(observer.checkExists().forPath(PATH)).isNull();
    }

    /** A listener that throws is logged; the recipe goes on, and the partition still moves after lost(). */
    @Test
    void aThrowingListenerDoesNotBreakTheRecipe() throws Exception {
        CuratorFramework client = longSessionClient();
        PartitionRecorder seen = new PartitionRecorder("t", holders);
        FencedPartitions throwing =
                closeLater(new FencedPartitions(client, PATH, "t", 2, new FencedPartitionListener() {
                    @Override
                    public void acquired(int partition, FencingToken token) {
                        seen.acquired(partition, token);
                        throw new IllegalStateException("user code failed on purpose");
                    }

                    @Override
                    public void lost(int partition, FencingToken token, LossCause cause) {
                        seen.lost(partition, token, cause);
                        throw new IllegalStateException("user code failed on purpose");
                    }
                }));
        throwing.start();
        seen.awaitHeld(2);
        PartitionRecorder other = start(longSessionClient(), "u", 2);
        other.awaitHeld(1);
        seen.awaitHeld(1);
        assertThat(throwing.owned()).hasSize(1);
        assertThat(holders.violations).isEmpty();
    }
}
