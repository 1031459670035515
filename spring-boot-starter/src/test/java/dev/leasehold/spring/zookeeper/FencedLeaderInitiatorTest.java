package dev.leasehold.spring.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.recipes.FencedLeaderListener;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.recipes.LossCause;
import dev.leasehold.spring.FencedContext;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;

/** The initiator on its own, without an application context: grants, yields, losses and the events. */
class FencedLeaderInitiatorTest {

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
    void yieldGivesLeadershipUpAndTheNextGrantCarriesAHigherToken() throws Exception {
        Recorder recorder = new Recorder("r1", "billing");
        FencedLeaderInitiator initiator = new FencedLeaderInitiator(client, recorder, "/e");
        BlockingQueue<AbstractLeaderEvent> events = new LinkedBlockingQueue<>();
        initiator.setLeaderEventPublisher(
                new DefaultLeaderEventPublisher(event -> events.add((AbstractLeaderEvent) event)));
        initiator.start();
        try {
            FencedContext first = recorder.nextGranted();
            assertThat(first.isLeader()).isTrue();
            assertThat(first.getRole()).isEqualTo("billing");
            AbstractLeaderEvent granted = events.poll(20, TimeUnit.SECONDS);
            assertThat(granted).isInstanceOf(OnGrantedEvent.class);
            assertThat(FencedContext.of(granted).token()).isEqualTo(first.token());
            assertThat(granted.getRole()).isEqualTo("billing");
            assertThat(initiator.currentToken()).contains(first.token());

            first.yield();
            FencedContext revoked = recorder.nextRevoked();
            assertThat(revoked).isSameAs(first);
            assertThat(recorder.leaderAtRevoke.poll(20, TimeUnit.SECONDS)).isFalse();
            AbstractLeaderEvent revokedEvent = events.poll(20, TimeUnit.SECONDS);
            assertThat(revokedEvent).isInstanceOf(OnRevokedEvent.class);
            assertThat(FencedContext.of(revokedEvent)).isSameAs(first);

            FencedContext second = recorder.nextGranted();
            assertThat(second.token().value()).isGreaterThan(first.token().value());
            assertThat(first.isLeader()).isFalse();
            first.yield(); // an ended grant's yield does nothing
            assertThat(second.isLeader()).isTrue();
        } finally {
            initiator.stop();
        }
        assertThat(recorder.nextRevoked().isLeader()).isFalse();
        assertThat(initiator.isRunning()).isFalse();
    }

    @Test
    void aListenerHearsTheGrantBeforeOnGrantedAndTheLossWithItsCauseBeforeOnRevoked() throws Exception {
        Recorder recorder = new Recorder("r1", "billing");
        FencedLeaderInitiator initiator = new FencedLeaderInitiator(client, recorder, "/e");
        BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        initiator.addListener(new Heard(heard));
        initiator.start();
        FencedContext second;
        try {
            FencedContext first = recorder.nextGranted();
            // polled without waiting: the listener was told before onGranted ran
            assertThat(heard.poll()).isEqualTo("acquired " + first.token().value());
            first.yield();
            recorder.nextRevoked();
            assertThat(heard.poll()).isEqualTo("lost " + first.token().value() + " INTERRUPTED");
            second = recorder.nextGranted();
            assertThat(heard.poll()).isEqualTo("acquired " + second.token().value());
        } finally {
            initiator.stop();
        }
        recorder.nextRevoked();
        assertThat(heard.poll()).isEqualTo("lost " + second.token().value() + " CLOSED");
        assertThat(heard).isEmpty();
    }

    @Test
    void aSuspendedConnectionWithdrawsTheTokenBeforeOnRevoked() throws Exception {
        Recorder recorder = new Recorder("r1", "billing");
        FencedLeaderInitiator initiator = new FencedLeaderInitiator(client, recorder, "/e");
        BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        initiator.addListener(new Heard(heard));
        initiator.start();
        try {
            FencedContext granted = recorder.nextGranted();
            zk.stop();
            assertThat(recorder.nextRevoked()).isSameAs(granted);
            assertThat(heard)
                    .containsExactly(
                            "acquired " + granted.token().value(),
                            "lost " + granted.token().value() + " SUSPENDED");
            assertThat(recorder.leaderAtRevoke.poll(20, TimeUnit.SECONDS)).isFalse();
            assertThat(initiator.isLeader()).isFalse();
        } finally {
            initiator.stop();
        }
    }

    @Test
    void anOnGrantedThatThrowsGivesLeadershipUpAndIsStillRevoked() throws Exception {
        Recorder recorder = new Recorder("r1", "billing");
        recorder.failNextGrant = true;
        FencedLeaderInitiator initiator = new FencedLeaderInitiator(client, recorder, "/e");
        BlockingQueue<AbstractLeaderEvent> events = new LinkedBlockingQueue<>();
        initiator.setLeaderEventPublisher(
                new DefaultLeaderEventPublisher(event -> events.add((AbstractLeaderEvent) event)));
        initiator.start();
        try {
            FencedContext failed = recorder.nextGranted();
            assertThat(recorder.nextRevoked()).isSameAs(failed);
            FencedContext next = recorder.nextGranted();
            assertThat(next.token().value()).isGreaterThan(failed.token().value());
            AbstractLeaderEvent first = events.poll(20, TimeUnit.SECONDS);
            assertThat(first).isInstanceOf(OnGrantedEvent.class); // the failed grant published nothing
            assertThat(FencedContext.of(first)).isSameAs(next);
        } finally {
            initiator.stop();
        }
    }

    /** Records what an initiator's listener hears. */
    private record Heard(BlockingQueue<String> heard) implements FencedLeaderListener {

        @Override
        public void leadershipAcquired(FencingToken token) {
            heard.add("acquired " + token.value());
        }

        @Override
        public void leadershipLost(FencingToken token, LossCause cause) {
            heard.add("lost " + token.value() + " " + cause);
        }
    }

    /** Records each callback; {@code onGranted} can be told to throw once. */
    private static final class Recorder extends DefaultCandidate {

        final BlockingQueue<FencedContext> granted = new LinkedBlockingQueue<>();
        final BlockingQueue<FencedContext> revoked = new LinkedBlockingQueue<>();
        final BlockingQueue<Boolean> leaderAtRevoke = new LinkedBlockingQueue<>();
        volatile boolean failNextGrant;

        Recorder(String id, String role) {
            super(id, role);
        }

        @Override
        public void onGranted(Context context) {
            granted.add((FencedContext) context);
            if (failNextGrant) {
                failNextGrant = false;
                throw new IllegalStateException("the leader's work could not start");
            }
        }

        @Override
        public void onRevoked(Context context) {
            leaderAtRevoke.add(context.isLeader());
            revoked.add((FencedContext) context);
        }

        FencedContext nextGranted() throws InterruptedException {
            FencedContext next = granted.poll(20, TimeUnit.SECONDS);
            assertThat(next).as("a grant within 20 s").isNotNull();
            return next;
        }

        FencedContext nextRevoked() throws InterruptedException {
            FencedContext next = revoked.poll(20, TimeUnit.SECONDS);
            assertThat(next).as("a revocation within 20 s").isNotNull();
            return next;
        }
    }
}
