package dev.leasehold.spring.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.recipes.FencedLeaderListener;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.recipes.LossCause;
import dev.leasehold.spring.FencedContext;
import dev.leasehold.spring.StuckCandidate;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.DefaultCandidate;

/** Issue 27 in the starter: leasehold.election.progress-deadline and FencedContext.progress(). */
@Timeout(120)
class ProgressDeadlineStarterTest {

    private TestingServer zk;
    private CuratorFramework client;

    @BeforeEach
    void start() throws Exception {
        zk = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 200, -1), true);
        client = CuratorFrameworkFactory.newClient(zk.getConnectString(), 4_000, 2_000, new RetryOneTime(100));
        client.start();
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        zk.close();
    }

    @Test
    void aCandidateThatMakesNoProgressIsRevokedAsStalledAndAnotherInstanceLeads() throws Exception {
        StuckCandidate<FencedContext, LossCause> a = new StuckCandidate<>("a", "billing", FencedContext.class);
        FencedLeaderInitiator initiatorA = new FencedLeaderInitiator(client, a, "/e");
        // The clock starts at the grant, before onGranted reaches this thread: 300 ms was overtaken on a loaded
        // machine (load average 20 on 2 cores), the grant stalled before the first progress() below.
        initiatorA.setProgressDeadline(Duration.ofSeconds(2));
        initiatorA.addListener(new FencedLeaderListener() {
            @Override
            public void leadershipAcquired(FencingToken token) {}

            @Override
            public void leadershipLost(FencingToken token, LossCause cause) {
                a.lost(cause);
            }
        });
        StuckCandidate<FencedContext, LossCause> b = new StuckCandidate<>("b", "billing", FencedContext.class);
        FencedLeaderInitiator initiatorB = new FencedLeaderInitiator(client, b, "/e");
        initiatorA.start();
        try {
            FencedContext first = StuckCandidate.next(a.granted);
            first.progress(); // once: the deadline counts from here, and nothing comes after
            assertThat(initiatorA.sinceProgress()).isPresent();
            initiatorB.start();
            assertThat(StuckCandidate.next(a.revoked)).isSameAs(first);
            assertThat(StuckCandidate.next(a.causes)).isEqualTo(LossCause.STALLED);
            FencedContext second = StuckCandidate.next(b.granted);
            assertThat(second.token().value()).isGreaterThan(first.token().value());
            assertThat(first.isLeader()).isFalse();
            first.progress(); // an ended grant's progress() is ignored
            assertThat(second.isLeader()).isTrue();
            assertThat(initiatorA.sinceProgress()).isEmpty();
        } finally {
            initiatorB.stop();
            initiatorA.stop();
        }
    }

    @Test
    void theDeadlineIsBoundPerInitiatorAndABadOneFailsTheContext() {
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LeaseholdZookeeperAutoConfiguration.class))
                .withUserConfiguration(OneCandidate.class)
                .withPropertyValues("leasehold.zookeeper.connect-string=" + zk.getConnectString());
        runner.withPropertyValues("leasehold.election.progress-deadline=45s").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(FencedLeaderInitiator.class).progressDeadline())
                    .contains(Duration.ofSeconds(45));
        });
        runner.run(context -> assertThat(
                        context.getBean(FencedLeaderInitiator.class).progressDeadline())
                .isEmpty());
        runner.withPropertyValues("leasehold.election.progress-deadline=0s").run(context -> assertThat(context)
                .hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("leasehold.election.progress-deadline"));
        assertThatThrownBy(() -> new FencedLeaderInitiator(client, new DefaultCandidate("x", "r"), "/e")
                        .setProgressDeadline(Duration.ofMillis(-5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("progressDeadline must be more than 0");
    }

    @Configuration(proxyBeanMethods = false)
    static class OneCandidate {
        @Bean
        Candidate candidate() {
            return new DefaultCandidate("instance-1", "billing");
        }
    }
}
