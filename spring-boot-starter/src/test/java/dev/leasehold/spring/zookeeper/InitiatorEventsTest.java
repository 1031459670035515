package dev.leasehold.spring.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.micrometer.ElectionMeters;
import dev.leasehold.recipes.FencedLeaderListener;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.recipes.LossCause;
import dev.leasehold.spring.FencedContext;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
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
import org.junit.jupiter.api.Timeout;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.leader.event.LeaderEventPublisher;

/**
 * What Spring Integration's own leader tests ({@code ZookeeperLeaderTests}, {@code LeaderInitiatorFactoryBeanTests},
 * {@code LockRegistryLeaderInitiatorTests}) expect of an initiator's events, through our API: every published grant
 * is followed by its revocation; a failing event listener does not cost leadership; a publisher swapped while
 * leading hears the revocation; a loss is counted with the cause that withdrew the token.
 */
@Timeout(120)
class InitiatorEventsTest {

    private TestingServer zk;
    private CuratorFramework client;
    private final BlockingQueue<String> timeline = new LinkedBlockingQueue<>();

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

    /** A candidate that writes its callbacks to the timeline; {@code onGranted} may yield on the first grant. */
    private final class Candidate extends DefaultCandidate {
        volatile boolean yieldOnFirstGrant;

        Candidate() {
            super("c1", "billing");
        }

        @Override
        public void onGranted(Context context) {
            timeline.add("onGranted " + token(context));
            if (yieldOnFirstGrant) {
                yieldOnFirstGrant = false;
                context.yield(); // allowed by the Javadoc
            }
        }

        @Override
        public void onRevoked(Context context) {
            timeline.add("onRevoked " + token(context));
        }
    }

    /** Writes each event to the timeline, with a tag naming the publisher. */
    private LeaderEventPublisher publisher(String tag) {
        return new DefaultLeaderEventPublisher(event -> {
            AbstractLeaderEvent leaderEvent = (AbstractLeaderEvent) event;
            timeline.add(tag + leaderEvent.getClass().getSimpleName() + " " + token(leaderEvent.getContext()));
        });
    }

    private static long token(Context context) {
        return ((FencedContext) context).token().value();
    }

    private String next() throws InterruptedException {
        String entry = timeline.poll(20, TimeUnit.SECONDS);
        assertThat(entry).as("a timeline entry within 20 s").isNotNull();
        return entry;
    }

    /** The grant's event is held in delivery while the initiator stops: its OnRevokedEvent must still come. */
    @Test
    void aGrantStillBeingPublishedWhenStoppedIsRevokedWithItsEvent() throws Exception {
        CountDownLatch delivering = new CountDownLatch(1);
        CountDownLatch deliver = new CountDownLatch(1);
        FencedLeaderInitiator initiator = new FencedLeaderInitiator(client, new Candidate(), "/e");
        LeaderEventPublisher recorded = publisher("");
        initiator.setLeaderEventPublisher(holding(delivering, deliver, recorded));
        BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        initiator.addListener(new Heard(heard));
        initiator.start();
        long token = Long.parseLong(next().substring("onGranted ".length()));
        assertThat(delivering.await(20, TimeUnit.SECONDS)).isTrue();

        Thread stopping = new Thread(initiator::stop, "stopping");
        stopping.start();
        assertThat(heard.poll(20, TimeUnit.SECONDS)).isEqualTo("acquired " + token);
        assertThat(heard.poll(20, TimeUnit.SECONDS)).isEqualTo("lost " + token + " CLOSED"); // the token is withdrawn
        deliver.countDown();
        stopping.join(20_000);

        assertThat(List.of(next(), next(), next()))
                .containsExactly("OnGrantedEvent " + token, "onRevoked " + token, "OnRevokedEvent " + token);
    }

    /** {@code onGranted} yields: the grant's events still come in pairs, and the next grant follows. */
    @Test
    void aYieldFromOnGrantedIsFollowedByTheRevocationEvent() throws Exception {
        Candidate candidate = new Candidate();
        candidate.yieldOnFirstGrant = true;
        FencedLeaderInitiator initiator = new FencedLeaderInitiator(client, candidate, "/e");
        initiator.setLeaderEventPublisher(publisher(""));
        initiator.start();
        try {
            String first = next();
            long t1 = Long.parseLong(first.substring("onGranted ".length()));
            assertThat(List.of(next(), next(), next()))
                    .containsExactly("OnGrantedEvent " + t1, "onRevoked " + t1, "OnRevokedEvent " + t1);
            String second = next();
            assertThat(second).startsWith("onGranted ");
            assertThat(next()).isEqualTo("OnGrantedEvent " + second.substring("onGranted ".length()));
        } finally {
            initiator.stop();
        }
    }

    /** Spring Integration (INT-4220): a listener of OnGrantedEvent that throws is logged; the candidate stays leader. */
    @Test
    void aListenerOfTheGrantEventThatThrowsDoesNotCostLeadership() throws Exception {
        FencedLeaderInitiator initiator = new FencedLeaderInitiator(client, new Candidate(), "/e");
        LeaderEventPublisher recorded = publisher("");
        initiator.setLeaderEventPublisher(new LeaderEventPublisher() {
            @Override
            public void publishOnGranted(Object source, Context context, String role) {
                recorded.publishOnGranted(source, context, role);
                throw new IllegalStateException("a listener of OnGrantedEvent that throws (expected in this test)");
            }

            @Override
            public void publishOnFailedToAcquire(Object source, Context context, String role) {
                recorded.publishOnFailedToAcquire(source, context, role);
            }

            @Override
            public void publishOnRevoked(Object source, Context context, String role) {
                recorded.publishOnRevoked(source, context, role);
            }
        });
        BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        initiator.addListener(new Heard(heard));
        initiator.start();
        long token = Long.parseLong(next().substring("onGranted ".length()));
        assertThat(next()).isEqualTo("OnGrantedEvent " + token);

        initiator.stop();

        assertThat(List.of(next(), next())).containsExactly("onRevoked " + token, "OnRevokedEvent " + token);
        assertThat(timeline).as("no other grant meanwhile").isEmpty();
        assertThat(heard).containsExactly("acquired " + token, "lost " + token + " CLOSED");
    }

    /** A publisher set while leading hears that grant's revocation. */
    @Test
    void aPublisherSetWhileLeadingHearsTheRevocation() throws Exception {
        FencedLeaderInitiator initiator = new FencedLeaderInitiator(client, new Candidate(), "/e");
        initiator.setLeaderEventPublisher(publisher("old "));
        initiator.start();
        long token = Long.parseLong(next().substring("onGranted ".length()));
        assertThat(next()).isEqualTo("old OnGrantedEvent " + token);

        initiator.setLeaderEventPublisher(publisher("new "));
        initiator.stop();

        assertThat(List.of(next(), next())).containsExactly("onRevoked " + token, "new OnRevokedEvent " + token);
    }

    /** Under Curator's default error policy, an expired session withdraws the token as LOST, and is counted so. */
    @Test
    void aSessionLossIsCountedAsLost() throws Exception {
        FencedLeaderInitiator initiator = new FencedLeaderInitiator(client, new Candidate(), "/e");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ElectionMeters meters = new ElectionMeters(registry, initiator.electionPath(), initiator.participantId());
        initiator.addListener(meters);
        BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        initiator.addListener(new Heard(heard));
        initiator.start();
        try {
            long token = Long.parseLong(next().substring("onGranted ".length()));
            assertThat(heard.poll(20, TimeUnit.SECONDS)).isEqualTo("acquired " + token);

            client.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();

            assertThat(heard.poll(20, TimeUnit.SECONDS)).isEqualTo("lost " + token + " LOST");
            assertThat(registry.get("leasehold.leadership.losses")
                            .tag("cause", "lost")
                            .counter()
                            .count())
                    .isEqualTo(1.0);
            assertThat(registry.get("leasehold.leadership.losses")
                            .tag("cause", "suspended")
                            .counter()
                            .count())
                    .isZero();
        } finally {
            initiator.stop();
        }
    }

    /** Holds the delivery of OnGrantedEvent until {@code deliver} opens, then records it. */
    private static LeaderEventPublisher holding(
            CountDownLatch delivering, CountDownLatch deliver, LeaderEventPublisher recorded) {
        return new LeaderEventPublisher() {
            @Override
            public void publishOnGranted(Object source, Context context, String role) {
                delivering.countDown();
                awaitUninterruptibly(deliver);
                recorded.publishOnGranted(source, context, role);
            }

            @Override
            public void publishOnFailedToAcquire(Object source, Context context, String role) {
                recorded.publishOnFailedToAcquire(source, context, role);
            }

            @Override
            public void publishOnRevoked(Object source, Context context, String role) {
                recorded.publishOnRevoked(source, context, role);
            }
        };
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
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
}
