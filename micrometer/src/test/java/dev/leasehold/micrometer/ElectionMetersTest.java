package dev.leasehold.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.recipes.FencedLeaderLatch;
import dev.leasehold.recipes.FencedLeaderListener;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.recipes.LossCause;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The election meters against a real ZooKeeper: a leader change moves the gauges, counters and timers. */
@Timeout(60)
class ElectionMetersTest {

    private static final String PATH = "/billing/leader";

    private final MockClock clock = new MockClock();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, clock);
    private TestingServer server;
    private CuratorFramework clientA;
    private CuratorFramework clientB;

    @BeforeEach
    void startZooKeeper() throws Exception {
        server = new TestingServer();
        clientA = client();
        clientB = client();
    }

    @AfterEach
    void stop() throws Exception {
        clientA.close();
        clientB.close();
        server.close();
    }

    private CuratorFramework client() {
        CuratorFramework client =
                CuratorFrameworkFactory.newClient(server.getConnectString(), 10_000, 5_000, new RetryOneTime(100));
        client.start();
        return client;
    }

    /** Events heard by a listener added after the meters: once it hears one, the meters have heard it too. */
    private static final class Heard implements FencedLeaderListener {
        final BlockingQueue<String> events = new LinkedBlockingQueue<>();

        @Override
        public void leadershipAcquired(FencingToken token) {
            events.add("acquired");
        }

        @Override
        public void leadershipLost(FencingToken token, LossCause cause) {
            events.add("lost " + cause);
        }

        String next() throws InterruptedException {
            String event = events.poll(30, TimeUnit.SECONDS);
            assertThat(event).as("an event within 30 s").isNotNull();
            return event;
        }
    }

    private double gauge(String participant) {
        return registry.get("leasehold.leader")
                .tag("election", PATH)
                .tag("participant", participant)
                .gauge()
                .value();
    }

    private double count(String name, String participant) {
        return registry.get(name).tag("participant", participant).counter().count();
    }

    private Timer timer(String name, String participant) {
        return registry.get(name).tag("participant", participant).timer();
    }

    @Test
    void aLeaderChangeMovesTheGaugesCountsTheLossByCauseAndTimesHeldAndWait() throws Exception {
        FencedLeaderLatch a = new FencedLeaderLatch(clientA, PATH, "a");
        FencedLeaderLatch b = new FencedLeaderLatch(clientB, PATH, "b");
        ElectionMeters.bind(registry, a);
        ElectionMeters.bind(registry, b);
        Heard heardA = new Heard();
        Heard heardB = new Heard();
        a.addListener(heardA);
        b.addListener(heardB);
        assertThat(gauge("a")).isZero();

        a.start();
        assertThat(heardA.next()).isEqualTo("acquired");
        b.start();
        assertThat(b.await(200, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(gauge("a")).isEqualTo(1.0);
        assertThat(gauge("b")).isZero();
        assertThat(count("leasehold.leadership.grants", "a")).isEqualTo(1.0);

        clock.add(Duration.ofSeconds(5)); // a leads for five seconds of the registry's clock
        a.close();
        assertThat(heardA.next()).isEqualTo("lost CLOSED");
        assertThat(heardB.next()).isEqualTo("acquired");

        assertThat(gauge("a")).isZero();
        assertThat(gauge("b")).isEqualTo(1.0);
        assertThat(registry.get("leasehold.leadership.losses")
                        .tag("participant", "a")
                        .tag("cause", "closed")
                        .counter()
                        .count())
                .isEqualTo(1.0);
        assertThat(registry.get("leasehold.leadership.losses")
                        .tag("participant", "a")
                        .tag("cause", "lost")
                        .counter()
                        .count())
                .isZero();
        assertThat(timer("leasehold.leadership.held", "a").count()).isEqualTo(1);
        assertThat(timer("leasehold.leadership.held", "a").totalTime(TimeUnit.SECONDS))
                .isEqualTo(5.0);
        assertThat(timer("leasehold.leadership.wait", "a").totalTime(TimeUnit.SECONDS))
                .isZero();
        assertThat(timer("leasehold.leadership.wait", "b").totalTime(TimeUnit.SECONDS))
                .isEqualTo(5.0);
        assertThat(count("leasehold.leadership.grants", "b")).isEqualTo(1.0);
        b.close();
        assertThat(heardB.next()).isEqualTo("lost CLOSED");
        assertThat(gauge("b")).isZero();
    }

    @Test
    void removedMetersLeaveTheRegistryAndBadTagsAreRejected() {
        ElectionMeters meters = new ElectionMeters(registry, PATH, "c");
        assertThat(registry.find("leasehold.leader").tag("participant", "c").gauge())
                .isNotNull();
        meters.remove();
        meters.remove();
        assertThat(registry.find("leasehold.leader").tag("participant", "c").gauge())
                .isNull();
        assertThatThrownBy(() -> new ElectionMeters(registry, " ", "c"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("election");
        assertThatThrownBy(() -> new ElectionMeters(null, PATH, "c"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("registry");
    }
}
