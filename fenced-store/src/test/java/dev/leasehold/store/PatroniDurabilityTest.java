package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.store.FailoverDurability.Replication;
import dev.leasehold.store.lease.LeaseElection;
import dev.leasehold.store.lease.LeaseListener;
import dev.leasehold.store.lease.LeaseLoss;
import dev.leasehold.store.lease.LeaseTiming;
import dev.leasehold.testkit.PatroniCluster;
import dev.leasehold.testkit.WithPatroni;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The store tells you: on a real Patroni cluster (PostgreSQL 15, a primary and a streaming standby), the durability
 * check says ASYNCHRONOUS (at risk) while replication is asynchronous and SYNCHRONOUS once Patroni's synchronous
 * mode is on. One cluster for the class, switched between the modes through Patroni's REST API.
 */
@WithPatroni
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PatroniDurabilityTest {

    private static PatroniCluster cluster;

    @BeforeAll
    static void start(PatroniCluster shared) {
        cluster = shared; // the class's one cluster (WithPatroni), stopped after the class
    }

    @Test
    @Order(1)
    void anAsynchronousStandbyIsReportedAsAFailoverRiskAndASynchronousOneIsNot() {
        DataSource ds = cluster.dataSource();
        FencedSchema.install(ds);
        cluster.awaitStandbys(Duration.ofSeconds(60)); // a standby that restarted after the bootstrap streams again

        FailoverDurability asynchronous = FencedSchema.verify(ds);
        System.out.println("asynchronous cluster: " + asynchronous);
        assertThat(asynchronous.replication()).isEqualTo(Replication.ASYNCHRONOUS);
        assertThat(asynchronous.atRisk()).isTrue();
        assertThat(asynchronous.reason()).contains("1 standby streams", "synchronous_standby_names is empty");
        assertThat(asynchronous.advice()).contains("synchronous_mode: true", "synchronous_commit");

        cluster.setSynchronous(true, Duration.ofSeconds(60));
        FailoverDurability synchronous = FencedSchema.durability(ds);
        System.out.println("synchronous cluster: " + synchronous);
        assertThat(synchronous.replication()).isEqualTo(Replication.SYNCHRONOUS);
        assertThat(synchronous.atRisk()).isFalse();
        assertThat(synchronous.reason()).contains("synchronous_commit = on", "1 synchronously");
        assertThat(synchronous.advice()).isEmpty();
    }

    /**
     * A lease election checks as a gate does: on the asynchronous cluster its first take logs one WARN that a failover
     * can lose its grants; on the synchronous cluster (another URL, so not already warned about) none.
     */
    @Test
    @Order(2)
    void aLeaseElectionWarnsAtItsFirstTakeOnAnAsynchronousClusterAndNotOnASynchronousOne() throws Exception {
        cluster.setSynchronous(false, Duration.ofSeconds(60));
        cluster.awaitStandbys(Duration.ofSeconds(60));
        DataSource multiHost = cluster.dataSource();
        FencedSchema.install(multiHost);

        String asynchronous = stderrWhileElected(multiHost, "async");
        assertThat(asynchronous)
                .contains("lease election on jdbc:postgresql://")
                .contains("a failover can lose acknowledged lease grants")
                .contains("synchronous_mode: true");
        assertThat(asynchronous.split("a failover can lose acknowledged lease grants", -1))
                .as("one WARN")
                .hasSize(2);

        cluster.setSynchronous(true, Duration.ofSeconds(60));
        DataSource primaryOnly = cluster.dataSource(cluster.primary().orElseThrow());
        assertThat(stderrWhileElected(primaryOnly, "sync")).doesNotContain("lease grants");
    }

    /** What this JVM wrote to stderr (where slf4j-simple logs) while two elections on {@code ds} took their lease. */
    private static String stderrWhileElected(DataSource ds, String name) throws InterruptedException {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        CountDownLatch acquired = new CountDownLatch(1);
        LeaseListener listener = new LeaseListener() {
            @Override
            public void acquired(long token) {
                acquired.countDown();
            }

            @Override
            public void lost(long token, LeaseLoss cause) {}
        };
        try (LeaseElection first = new LeaseElection(ds, name, "a", LeaseTiming.defaults(), listener);
                LeaseElection second = new LeaseElection(ds, name + "-2", "b", LeaseTiming.defaults(), listener)) {
            first.start();
            assertThat(acquired.await(30, TimeUnit.SECONDS)).isTrue();
            CountDownLatch both = new CountDownLatch(1);
            second.addListener(new LeaseListener() {
                @Override
                public void acquired(long token) {
                    both.countDown();
                }

                @Override
                public void lost(long token, LeaseLoss cause) {}
            });
            second.start();
            assertThat(both.await(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            System.setErr(err);
        }
        String text = captured.toString(StandardCharsets.UTF_8);
        err.print(text);
        return text;
    }
}
