package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.testkit.TcpProxy;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A rebalance's znode work in multis ({@link PartitionBatches}), on a real server, counted on the wire: what ZooKeeper
 * does with a multi (one transaction, one czxid; all or nothing) and each way a multi fails (a missing parent, a
 * parent another member created first, a node already gone, a create sent twice).
 */
class PartitionBatchesTest extends ZkTestCase {

    private static final String PATH = "/batch/group";

    private TcpProxy proxy;
    private CuratorFramework client;
    private PartitionNodes nodes;

    @BeforeEach
    void client() throws Exception {
        proxy = closeLater(TcpProxy.to(server.getConnectString()));
        client = closeLater(Zk.started(TcpProxy.clientBuilder(proxy.connectString(), Zk.SESSION_MS)));
        nodes = new PartitionNodes(client, PATH);
        observer.create().creatingParentsIfNeeded().forPath(PATH); // as a member's own node leaves it
    }

    @Test
    void theNodesOfOneMultiShareOneCzxidAndAPartitionsTokensStillIncreaseAcrossOwners() throws Exception {
        Map<Integer, PartitionNodes.Own> first = nodes.batch().createLeases(List.of(0, 1, 2), "first");
        assertThat(first.values().stream().map(PartitionNodes.Own::czxid).distinct())
                .as("one transaction, one zxid")
                .hasSize(1);
        for (PartitionNodes.Own own : first.values()) {
            assertThat(own.czxid()).isEqualTo(Zk.czxid(observer, own.path()));
            assertThat(own.owner()).isEqualTo(ElectionNodes.sessionId(client));
        }
        PartitionNodes other = new PartitionNodes(observer, PATH);
        Map<Integer, PartitionNodes.Own> second = other.batch().createLeases(List.of(1, 2), "second");
        for (int p : List.of(1, 2)) {
            assertThat(second.get(p).czxid()).isGreaterThan(first.get(p).czxid());
        }
        Map<Integer, PartitionNodes.Check> checks = other.batch().checkAll(second, event -> {});
        for (int p : List.of(1, 2)) {
            assertThat(checks.get(p).holds()).isFalse();
            assertThat(checks.get(p).predecessor())
                    .as("waits behind the first owner's node")
                    .isEqualTo(ZKPaths.getNodeFromPath(first.get(p).path()));
        }
    }

    @Test
    void createsInAGroupWithoutParentsCreateTheParentsInOneMultiAndTheNodesInAnother() throws Exception {
        long before = proxy.requests();
        Map<Integer, PartitionNodes.Own> created =
                nodes.batch().createLeases(IntStream.range(0, 40).boxed().toList(), "m");
        long requests = proxy.requests() - before;
        assertThat(created).hasSize(40);
        for (int p = 0; p < 40; p++) {
            assertThat(observer.getChildren().forPath(nodes.partitionPath(p))).hasSize(1);
        }
        // the multi fails (NoNode); one read finds the 40 parents missing; their multi fails (the partitions' own
        // parent is missing too); that parent; the parents' multi again; the nodes' multi again; one read of Stats
        assertThat(requests).as("requests for 40 partitions").isEqualTo(7);
    }

    @Test
    void aParentAnotherMemberCreatedFirstFailsTheParentsMultiAndEachParentIsThenCreatedOnItsOwn() throws Exception {
        observer.create().creatingParentContainersIfNeeded().forPath(nodes.partitionPath(1));
        List<String> parents = List.of(nodes.partitionPath(0), nodes.partitionPath(1), nodes.partitionPath(2));
        long before = proxy.requests();
        nodes.batch().createParents(parents);
        assertThat(proxy.requests() - before)
                .as("the multi (NodeExists), then three creates")
                .isEqualTo(4);
        for (String parent : parents) {
            assertThat(observer.checkExists().forPath(parent)).isNotNull();
        }
    }

    @Test
    void aMultiOfCreatesFailsWholeWhenOneParentIsMissingAndSucceedsOnceItIsCreated() throws Exception {
        nodes.batch().createParents(List.of(nodes.partitionPath(0), nodes.partitionPath(2)));
        long czxidBefore = Zk.czxid(observer, nodes.partitionPath(2));
        Map<Integer, PartitionNodes.Own> created = nodes.batch().createLeases(List.of(0, 1, 2), "m");
        assertThat(created).hasSize(3);
        assertThat(created.values().stream().map(PartitionNodes.Own::czxid).distinct())
                .hasSize(1)
                .allMatch(czxid -> czxid > czxidBefore);
        for (int p = 0; p < 3; p++) {
            assertThat(observer.getChildren().forPath(nodes.partitionPath(p)))
                    .as("partition %d: one node, the failed multi left none", p)
                    .hasSize(1);
        }
    }

    @Test
    void anyOtherFailureOfTheMultiFallsBackToOneByOneAndTheNodesItLeftAreFoundAsOursLater() throws Exception {
        observer.create().creatingParentContainersIfNeeded().forPath(nodes.partitionPath(0));
        observer.create().withMode(CreateMode.EPHEMERAL).forPath(nodes.partitionPath(1)); // takes no children
        assertThatThrownBy(() -> nodes.batch().createLeases(List.of(0, 1), "m"))
                .as("the multi fails whole, then partition 1 on its own")
                .isInstanceOf(KeeperException.NoChildrenForEphemeralsException.class);
        List<String> left = observer.getChildren().forPath(nodes.partitionPath(0));
        assertThat(left)
                .as("partition 0, created on its own before partition 1 failed")
                .hasSize(1);

        PartitionNodes.Own again = nodes.batch().createLeases(List.of(0), "m").get(0);
        PartitionNodes.Check check =
                nodes.batch().checkAll(Map.of(0, again), event -> {}).get(0);
        assertThat(check.holds())
                .as("the node left behind is ours: not waited on")
                .isTrue();
        assertThat(observer.getChildren().forPath(nodes.partitionPath(0)))
                .as("and deleted")
                .containsExactly(ZKPaths.getNodeFromPath(again.path()));
    }

    @Test
    void aCreateSentTwiceLeavesADuplicateThatTheCheckDeletesInsteadOfWaitingBehindIt() throws Exception {
        PartitionNodes.Own lost = nodes.createLease(0, "m"); // as if its answer was lost and it was sent again
        PartitionNodes.Own again = nodes.batch().createLeases(List.of(0), "m").get(0);
        assertThat(observer.getChildren().forPath(nodes.partitionPath(0))).hasSize(2);
        PartitionNodes.Check check =
                nodes.batch().checkAll(Map.of(0, again), event -> {}).get(0);
        assertThat(check.holds()).as("our own older node is not a predecessor").isTrue();
        assertThat(observer.checkExists().forPath(lost.path()))
                .as("the duplicate")
                .isNull();
        assertThat(observer.checkExists().forPath(again.path())).isNotNull();
    }

    @Test
    void aMultiOfDeletesWithOneNodeGoneFallsBackToOneByOneAndDeletesTheRest() throws Exception {
        Map<Integer, PartitionNodes.Own> created = nodes.batch().createLeases(List.of(0, 1, 2), "m");
        observer.delete().forPath(created.get(1).path());
        nodes.batch()
                .deleteNodes(
                        created.values().stream().map(PartitionNodes.Own::path).toList());
        for (PartitionNodes.Own own : created.values()) {
            assertThat(observer.checkExists().forPath(own.path())).isNull();
        }
    }

    @Test
    void aClientWithANamespaceGetsNamespaceRelativePathsAndItsReadsFindItsNodes() throws Exception {
        CuratorFramework namespaced =
                closeLater(Zk.client(server.getConnectString())).usingNamespace("app");
        namespaced.create().creatingParentsIfNeeded().forPath(PATH);
        PartitionNodes inApp = new PartitionNodes(namespaced, PATH);
        Map<Integer, PartitionNodes.Own> created = inApp.batch().createLeases(List.of(0, 1), "m");
        assertThat(created.get(0).path()).startsWith(PATH + "/partitions/0/");
        assertThat(observer.checkExists().forPath("/app" + created.get(0).path()))
                .isNotNull();
        assertThat(inApp.batch().checkAll(created, event -> {}).values()).allMatch(PartitionNodes.Check::holds);
    }

    @Test
    void chunksStayBelowTheOperationAndByteLimits() {
        List<Integer> items = IntStream.range(0, 1_201).boxed().toList();
        List<List<Integer>> chunks = PartitionBatches.chunks(items, 100);
        assertThat(chunks).allSatisfy(c -> assertThat(c).hasSizeLessThanOrEqualTo(PartitionBatches.MAX_OPS));
        assertThat(chunks.stream().mapToInt(List::size).sum()).isEqualTo(1_201);
        assertThat(PartitionBatches.chunks(items, 4_000))
                .allSatisfy(c -> assertThat(c.size() * 4_000).isLessThanOrEqualTo(PartitionBatches.MAX_BYTES));
    }
}
