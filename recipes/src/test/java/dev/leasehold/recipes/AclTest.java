package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.testkit.TcpProxy;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The recipes' znodes get the client's ACLs: with digest ACLs, an unauthenticated client cannot join or cut in. */
@Timeout(60)
class AclTest {

    private static final String PATH = "/secure/leader";

    private static final ACLProvider CREATOR_ONLY = new ACLProvider() {
        @Override
        public List<ACL> getDefaultAcl() {
            return ZooDefs.Ids.CREATOR_ALL_ACL;
        }

        @Override
        public List<ACL> getAclForPath(String path) {
            return ZooDefs.Ids.CREATOR_ALL_ACL;
        }
    };

    @Test
    void anUnauthenticatedClientCanNeitherJoinNorJumpTheQueue() throws Exception {
        try (TestingServer server = Zk.server();
                CuratorFramework admin = Zk.started(Zk.builder(server.getConnectString())
                        .authorization("digest", "admin:secret".getBytes(StandardCharsets.UTF_8))
                        .aclProvider(CREATOR_ONLY));
                TcpProxy strangerProxy = TcpProxy.to(server.getConnectString());
                CuratorFramework stranger = Zk.client(strangerProxy.connectString());
                FencedLeaderLatch leader = new FencedLeaderLatch(admin, PATH, "admin")) {
            GrantRecorder recorder = new GrantRecorder();
            leader.addListener(recorder);
            leader.start();
            FencingToken token = recorder.nextAcquired();

            List<ACL> acl = admin.getACL().forPath(token.path());
            assertThat(acl).hasSize(1);
            assertThat(acl.get(0).getId().getScheme()).isEqualTo("digest");
            assertThat(acl.get(0).getId().getId()).startsWith("admin:");
            assertThat(admin.getACL().forPath(PATH).get(0).getId().getScheme()).isEqualTo("digest");

            stranger.checkExists().forPath("/");
            long requestsBefore = strangerProxy.requests();
            try (FencedLeaderLatch intruder = new FencedLeaderLatch(stranger, PATH, "intruder")) {
                intruder.start();
                // The intruder's create is refused (NoAuth): wait until it was sent, then a round trip proves it
                // was answered (a session's requests are answered in order).
                assertThat(strangerProxy.awaitRequests(requestsBefore + 1, Zk.WAIT))
                        .isTrue();
                stranger.checkExists().forPath("/");
                assertThat(admin.getChildren().forPath(PATH)).hasSize(1);
                assertThat(intruder.hasLeadership()).isFalse();
            }

            assertThatThrownBy(() -> stranger.delete().forPath(token.path()))
                    .isInstanceOf(KeeperException.NoAuthException.class);
            assertThatThrownBy(() -> stranger.create()
                            .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                            .forPath(PATH + "/_c_00000000-0000-0000-0000-000000000000-latch-", new byte[0]))
                    .isInstanceOf(KeeperException.NoAuthException.class);
            assertThat(leader.currentToken()).contains(token);
            assertThat(admin.getChildren().forPath(PATH)).hasSize(1);
        }
    }

    /** Issue 42: the mutex's lock nodes get the client's ACL too: a stranger can neither delete a hold nor queue. */
    @Test
    void aMutexsNodesCarryTheClientsAcl() throws Exception {
        try (TestingServer server = Zk.server();
                CuratorFramework admin = Zk.started(Zk.builder(server.getConnectString())
                        .authorization("digest", "admin:secret".getBytes(StandardCharsets.UTF_8))
                        .aclProvider(CREATOR_ONLY));
                CuratorFramework stranger = Zk.client(server.getConnectString());
                FencedMutex mutex = new FencedMutex(admin, "/secure/lock")) {
            FencingToken token = mutex.acquire();
            assertThat(admin.getACL().forPath(token.path()).get(0).getId().getScheme())
                    .isEqualTo("digest");
            assertThat(admin.getACL().forPath("/secure/lock").get(0).getId().getScheme())
                    .isEqualTo("digest");
            assertThatThrownBy(() -> stranger.delete().forPath(token.path()))
                    .isInstanceOf(KeeperException.NoAuthException.class);
            assertThatThrownBy(() -> stranger.create()
                            .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                            .forPath("/secure/lock/_c_00000000-0000-0000-0000-000000000000-lock-", new byte[0]))
                    .isInstanceOf(KeeperException.NoAuthException.class);
            assertThat(mutex.currentToken()).contains(token);
            mutex.release();
        }
    }

    /** Issue 42: a partition group's nodes (members, target, partition leases) get the client's ACL. */
    @Test
    void aPartitionGroupsNodesCarryTheClientsAcl() throws Exception {
        try (TestingServer server = Zk.server();
                CuratorFramework admin = Zk.started(Zk.builder(server.getConnectString())
                        .authorization("digest", "admin:secret".getBytes(StandardCharsets.UTF_8))
                        .aclProvider(CREATOR_ONLY));
                CuratorFramework stranger = Zk.client(server.getConnectString())) {
            java.util.concurrent.BlockingQueue<FencingToken> acquired =
                    new java.util.concurrent.LinkedBlockingQueue<>();
            try (FencedPartitions group =
                    new FencedPartitions(admin, "/secure/partitions", "admin", 2, new FencedPartitionListener() {
                        @Override
                        public void acquired(int partition, FencingToken token) {
                            acquired.add(token);
                        }

                        @Override
                        public void lost(int partition, FencingToken token, LossCause cause) {}
                    })) {
                group.start();
                FencingToken first = acquired.poll(Zk.WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
                assertThat(first).as("a partition is held").isNotNull();
                for (String node : admin.getChildren().forPath("/secure/partitions")) {
                    assertThat(admin.getACL()
                                    .forPath("/secure/partitions/" + node)
                                    .get(0)
                                    .getId()
                                    .getScheme())
                            .as(node)
                            .isEqualTo("digest");
                }
                assertThat(admin.getACL().forPath(first.path()).get(0).getId().getScheme())
                        .isEqualTo("digest");
                assertThatThrownBy(() -> stranger.delete().forPath(first.path()))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> stranger.getChildren().forPath("/secure/partitions"))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThat(group.owned()).containsValue(first);
            }
        }
    }
}
