package dev.leasehold.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.recipes.FencedPartitionListener;
import dev.leasehold.recipes.FencedPartitions;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.recipes.LossCause;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The partition meters against a real ZooKeeper: a join and a leave move the gauges and counters of both members. */
@Timeout(60)
class PartitionMetersTest {

    private static final String PATH = "/billing/partitions";

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
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

    private CuratorFramework client() throws InterruptedException {
        CuratorFramework client =
                CuratorFrameworkFactory.newClient(server.getConnectString(), 10_000, 5_000, new RetryOneTime(100));
        client.start();
        assertThat(client.blockUntilConnected(20, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    /** Counts what a member heard; added after the meters, so once it heard an event the meters have too. */
    private static final class Heard implements FencedPartitionListener {
        final Semaphore acquired = new Semaphore(0);
        final Semaphore lost = new Semaphore(0);

        @Override
        public void acquired(int partition, FencingToken token) {
            acquired.release();
        }

        @Override
        public void lost(int partition, FencingToken token, LossCause cause) {
            lost.release();
        }

        void await(Semaphore events, int n) throws InterruptedException {
            assertThat(events.tryAcquire(n, 20, TimeUnit.SECONDS))
                    .as("%d events", n)
                    .isTrue();
        }
    }

    private double count(String name, String participant, String... tags) {
        return registry.get(name)
                .tag("participant", participant)
                .tags(tags)
                .counter()
                .count();
    }

    private double gauge(String name, String participant) {
        return registry.get(name).tag("participant", participant).gauge().value();
    }

    @Test
    void aJoinAndALeaveMoveTheGaugesAndCountTheLossesByCause() throws Exception {
        Heard heardA = new Heard();
        Heard heardB = new Heard();
        FencedPartitions b = new FencedPartitions(clientB, PATH, "b", 6, new Heard());
        try (FencedPartitions a = new FencedPartitions(clientA, PATH, "a", 6, new Heard())) {
            PartitionMeters metersA = PartitionMeters.bind(registry, a);
            PartitionMeters.bind(registry, b);
            a.addListener(heardA); // after the meters
            b.addListener(heardB);
            a.start();
            heardA.await(heardA.acquired, 6);
            assertThat(gauge("leasehold.partitions.held", "a")).isEqualTo(6.0);
            assertThat(gauge("leasehold.partitions.target", "a")).isEqualTo(6.0);
            assertThat(gauge("leasehold.partitions.count", "a")).isEqualTo(6.0);
            assertThat(registry.get("leasehold.partitions.held")
                            .tag("election", PATH)
                            .tag("participant", "a")
                            .gauge())
                    .isNotNull();

            b.start();
            heardB.await(heardB.acquired, 3);
            heardA.await(heardA.lost, 3);
            assertThat(gauge("leasehold.partitions.held", "a")).isEqualTo(3.0);
            assertThat(gauge("leasehold.partitions.held", "b")).isEqualTo(3.0);
            assertThat(gauge("leasehold.partitions.target", "a")).isEqualTo(3.0);
            assertThat(count("leasehold.partitions.losses", "a", "cause", "rebalanced"))
                    .isEqualTo(3.0);
            assertThat(count("leasehold.partitions.acquisitions", "b")).isEqualTo(3.0);
            assertThat(count("leasehold.partitions.rebalances", "a")).isGreaterThanOrEqualTo(2.0);

            b.close();
            heardA.await(heardA.acquired, 3);
            assertThat(gauge("leasehold.partitions.held", "a")).isEqualTo(6.0);
            assertThat(gauge("leasehold.partitions.held", "b")).isEqualTo(0.0);
            assertThat(count("leasehold.partitions.losses", "b", "cause", "closed"))
                    .isEqualTo(3.0);
            assertThat(metersA.held()).isEqualTo(6);
            metersA.remove();
            assertThat(registry.find("leasehold.partitions.held")
                            .tag("participant", "a")
                            .gauge())
                    .isNull();
        } finally {
            b.close(); // idempotent
        }
    }

    @Test
    void badArgumentsAreRefused() {
        assertThatThrownBy(() -> new PartitionMeters(registry, " ", "a", 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("election");
        assertThatThrownBy(() -> new PartitionMeters(registry, PATH, "a", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("partitionCount");
        assertThatThrownBy(() -> PartitionMeters.bind(registry, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("partitions");
    }
}
