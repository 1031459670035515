package dev.leasehold.spring.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;

/**
 * Issue 42: the starter's nodes were {@code world:anyone cdrwa}, so an unauthenticated client of the ensemble could
 * create a node in the election (the real participant then never led, and health named the intruder) or delete one.
 * With {@code leasehold.zookeeper.auth.auth} the starter's client authenticates and creates every node
 * {@code creator-all}: another client can neither create nor delete under the election path.
 */
@Timeout(120)
class ZookeeperAclTest {
    private static final String ELECTION = "/leasehold/election/billing";
    private static final BlockingQueue<Context> GRANTS = new LinkedBlockingQueue<>();

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class OneCandidate {
        @Bean
        DefaultCandidate candidate() {
            return new DefaultCandidate("c1", "billing") {
                @Override
                public void onGranted(Context context) {
                    GRANTS.add(context);
                }
            };
        }
    }

    private static ConfigurableApplicationContext app(TestingServer zk, String... more) {
        return new SpringApplicationBuilder(OneCandidate.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "leasehold.zookeeper.connect-string=" + zk.getConnectString(), "spring.main.banner-mode=off")
                .properties(more)
                .run();
    }

    private static CuratorFramework client(TestingServer zk, String digest) throws InterruptedException {
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(zk.getConnectString())
                .retryPolicy(new RetryOneTime(100));
        if (digest != null) {
            builder.authorization("digest", digest.getBytes(StandardCharsets.UTF_8));
        }
        CuratorFramework client = builder.build();
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    @Test
    void withAuthAnotherClientCanNeitherCreateNorDeleteUnderTheElection() throws Exception {
        GRANTS.clear();
        try (TestingServer zk = new TestingServer();
                ConfigurableApplicationContext context = app(zk, "leasehold.zookeeper.auth.auth=app:s3cret");
                CuratorFramework owner = client(zk, "app:s3cret");
                CuratorFramework intruder = client(zk, null)) {
            assertThat(GRANTS.poll(30, TimeUnit.SECONDS))
                    .as("the participant leads")
                    .isNotNull();
            assertThat(context.isRunning()).isTrue();
            List<String> nodes = owner.getChildren().forPath(ELECTION);
            assertThat(nodes).hasSize(1);

            assertThatThrownBy(() -> intruder.create()
                            .withMode(CreateMode.PERSISTENT)
                            .forPath(ELECTION + "/_c_x-latch-0000000000", "intruder".getBytes(StandardCharsets.UTF_8)))
                    .as("no node of another client in the election")
                    .isInstanceOf(KeeperException.NoAuthException.class);
            assertThatThrownBy(() -> intruder.delete().forPath(ELECTION + "/" + nodes.get(0)))
                    .as("nor the leader's node deleted")
                    .isInstanceOf(KeeperException.NoAuthException.class);
            assertThatThrownBy(() -> intruder.getChildren().forPath(ELECTION))
                    .as("nor the participants listed")
                    .isInstanceOf(KeeperException.NoAuthException.class);
            assertThat(owner.getChildren().forPath(ELECTION)).isEqualTo(nodes);
        }
    }

    /** What the proof showed, kept as the contrast: without auth the nodes are open to every client. */
    @Test
    void withoutAuthTheNodesAreOpenToEveryClient() throws Exception {
        GRANTS.clear();
        try (TestingServer zk = new TestingServer();
                ConfigurableApplicationContext context = app(zk);
                CuratorFramework intruder = client(zk, null)) {
            assertThat(GRANTS.poll(30, TimeUnit.SECONDS)).isNotNull();
            assertThat(context.isRunning()).isTrue();
            assertThat(intruder.getChildren().forPath(ELECTION)).hasSize(1);
            intruder.create().forPath(ELECTION + "/probe");
            intruder.delete().forPath(ELECTION + "/probe");
        }
    }

    @Test
    void badAuthSettingsFailAtStart() {
        assertThatThrownBy(() -> new dev.leasehold.spring.LeaseholdZookeeperProperties.Auth("digest", "no-colon", null))
                .hasMessageContaining("user:password");
        assertThatThrownBy(
                        () -> new dev.leasehold.spring.LeaseholdZookeeperProperties.Auth("digest", null, "creator-all"))
                .hasMessageContaining("needs leasehold.zookeeper.auth.auth");
        assertThatThrownBy(() -> new dev.leasehold.spring.LeaseholdZookeeperProperties.Auth("digest", "a:b", "world"))
                .hasMessageContaining("creator-all or open");
        assertThat(new dev.leasehold.spring.LeaseholdZookeeperProperties.Auth("digest", "a:s3cret", null).toString())
                .doesNotContain("s3cret")
                .contains("creator-all");
    }
}
