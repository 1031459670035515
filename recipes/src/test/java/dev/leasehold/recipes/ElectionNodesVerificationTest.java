package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The checks that stand between "Curator says I lead" and a token, each shown to refuse: a node that is not the
 * lowest child, a node owned by another session, a selector node carrying another participant's id.
 */
@Timeout(60)
class ElectionNodesVerificationTest {

    private TestingServer server;
    private CuratorFramework mine;
    private CuratorFramework other;

    @BeforeEach
    void start() throws Exception {
        server = Zk.server();
        mine = Zk.client(server.getConnectString());
        other = Zk.client(server.getConnectString());
    }

    @AfterEach
    void stop() throws Exception {
        mine.close();
        other.close();
        server.close();
    }

    private static String node(CuratorFramework client, String path, String name, String data) throws Exception {
        return client.create()
                .creatingParentsIfNeeded()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(path + "/" + name, data.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void ownSelectorTokenIsGrantedForOurSessionsNodeAndRefusedForAnotherOrAVanishedOne() throws Exception {
        String ours = node(mine, "/v/own", "_c_a-lock-", "me");
        ElectionNodes.Read read = ElectionNodes.readOwnSelectorToken(mine, ours, "me");
        assertThat(read.isGranted()).isTrue();
        assertThat(read.token().value()).isEqualTo(Zk.czxid(other, ours));

        String theirs = node(other, "/v/own", "_c_b-lock-", "me");
        assertThat(ElectionNodes.readOwnSelectorToken(mine, theirs, "me").refusal())
                .contains("is owned by session");

        mine.delete().forPath(ours);
        assertThat(ElectionNodes.readOwnSelectorToken(mine, ours, "me").refusal())
                .contains("is gone");
    }

    @Test
    void theLeaderIsTheLowestNodeWithItsIdCzxidAndSession() throws Exception {
        assertThat(ElectionNodes.readLeader(mine, "/v/leader", ElectionNodes.LATCH_MARKER))
                .isEmpty();
        String first = node(other, "/v/leader", "_c_b-latch-", "them");
        node(mine, "/v/leader", "_c_a-latch-", "me");
        LeaderInfo leader = ElectionNodes.readLeader(mine, "/v/leader", ElectionNodes.LATCH_MARKER)
                .orElseThrow();
        assertThat(leader.participantId()).isEqualTo("them");
        assertThat(leader.token().value()).isEqualTo(Zk.czxid(mine, first));
        assertThat(leader.token().path()).isEqualTo(first);
        assertThat(leader.sessionId())
                .isEqualTo(other.getZookeeperClient().getZooKeeper().getSessionId());
    }

    @Test
    void selectorTokenNeedsOurIdAndOurSessionOnTheLowestNode() throws Exception {
        String first = node(mine, "/v/selector", "_c_a-lock-", "sibling");
        ElectionNodes.Read wrongId = ElectionNodes.readSelectorToken(mine, "/v/selector", "me");
        assertThat(wrongId.isGranted()).isFalse();
        assertThat(wrongId.refusal()).contains("carries id 'sibling'");

        mine.delete().forPath(first);
        String theirs = node(other, "/v/selector", "_c_b-lock-", "me");
        ElectionNodes.Read wrongSession = ElectionNodes.readSelectorToken(mine, "/v/selector", "me");
        assertThat(wrongSession.refusal()).contains("is owned by session");

        other.delete().forPath(theirs);
        String ours = node(mine, "/v/selector", "_c_c-lock-", "me");
        ElectionNodes.Read granted = ElectionNodes.readSelectorToken(mine, "/v/selector", "me");
        assertThat(granted.isGranted()).isTrue();
        assertThat(granted.token().path()).isEqualTo(ours);
    }

    @Test
    void aNamespacedClientReadsItsOwnNodes() throws Exception {
        try (CuratorFramework namespaced =
                Zk.started(Zk.builder(server.getConnectString()).namespace("app"))) {
            String ours = node(namespaced, "/v/selector", "_c_a-lock-", "me");
            ElectionNodes.Read read = ElectionNodes.readOwnSelectorToken(namespaced, ours, "me");
            assertThat(read.isGranted()).isTrue();
            assertThat(read.token().path()).isEqualTo("/app" + ours);
            assertThat(read.token().value()).isEqualTo(Zk.czxid(other, "/app" + ours));
        }
    }
}
