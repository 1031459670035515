package dev.leasehold.spring.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;

/**
 * Spring Integration's {@code LockRegistryLeaderInitiatorTests} timelines, re-expressed through {@link
 * FencedLeaderInitiator} directly (the scenarios, not Spring Integration's code; issue 41 item 5): no context, each
 * initiator built as {@code new FencedLeaderInitiator(client, new DefaultCandidate(), root)}, one client, a 4 s
 * session. Each {@code new DefaultCandidate()} has its own generated id, so two of them are two participants.
 */
@Timeout(120)
class SpringIntegrationLeaderTimelinesTest {

    private static final long WAIT_SECONDS = 30;

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

    /** A {@link DefaultCandidate} (generated id, role "leader") that counts its grants and revocations. */
    private static final class Counted extends DefaultCandidate {
        volatile CountDownLatch granted = new CountDownLatch(1);
        volatile CountDownLatch revoked = new CountDownLatch(1);

        @Override
        public void onGranted(Context ctx) {
            super.onGranted(ctx);
            granted.countDown();
        }

        @Override
        public void onRevoked(Context ctx) {
            super.onRevoked(ctx);
            revoked.countDown();
        }

        void expectNextRound() {
            granted = new CountDownLatch(1);
            revoked = new CountDownLatch(1);
        }
    }

    private static boolean await(CountDownLatch latch) throws InterruptedException {
        return latch.await(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    /** Spring Integration's {@code competing}: the first is granted; start the second, stop the first. */
    @Test
    void competing() throws Exception {
        Counted first = new Counted();
        Counted second = new Counted();
        assertThat(first.getId()).isNotEqualTo(second.getId());
        FencedLeaderInitiator one = new FencedLeaderInitiator(client, first, "/si");
        FencedLeaderInitiator two = new FencedLeaderInitiator(client, second, "/si");
        try {
            one.start();
            assertThat(await(first.granted)).as("the first granted").isTrue();
            two.start();
            assertThat(two.isLeader()).isFalse();

            one.stop();
            assertThat(await(first.revoked)).as("the first revoked").isTrue();
            assertThat(await(second.granted))
                    .as("the second granted once the first stopped")
                    .isTrue();
            assertThat(two.isLeader()).isTrue();
            assertThat(one.isRunning()).isFalse();
        } finally {
            one.stop();
            two.stop();
        }
    }

    /** A granted initiator that was stopped (revoked, not running) and started again is granted again. */
    @Test
    void aStoppedInitiatorStartedAgainIsGrantedAgain() throws Exception {
        Counted candidate = new Counted();
        FencedLeaderInitiator initiator = new FencedLeaderInitiator(client, candidate, "/si");
        try {
            initiator.start();
            assertThat(await(candidate.granted)).as("granted").isTrue();
            long firstToken = initiator.currentToken().orElseThrow().value();

            initiator.stop();
            assertThat(await(candidate.revoked)).as("revoked at stop").isTrue();
            assertThat(initiator.isRunning()).isFalse();
            assertThat(initiator.isLeader()).isFalse();

            candidate.expectNextRound();
            initiator.start();
            assertThat(initiator.isRunning()).isTrue();
            assertThat(await(candidate.granted))
                    .as("granted again after the restart")
                    .isTrue();
            assertThat(initiator.currentToken().orElseThrow().value()).isGreaterThan(firstToken);

            initiator.stop();
            assertThat(await(candidate.revoked))
                    .as("revoked at the second stop")
                    .isTrue();
        } finally {
            initiator.stop();
        }
    }
}
