package dev.leasehold.scenarios.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.testkit.ChaosDatabase;
import dev.leasehold.testkit.PatroniCluster;
import dev.leasehold.testkit.WithPatroni;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * {@code chaos --patroni} and {@code --patroni-async} in short: the campaign with its store on one Patroni cluster (two
 * PostgreSQL 15 members), first in synchronous mode (strict), where failovers must leave no violation, then switched
 * to asynchronous replication, where the first fault (replication paused before a new leader's advance, the primary
 * killed right after) must let a stale write through and the checker must find it. One cluster for both (a Patroni
 * start costs seconds), switched between the modes through Patroni's REST API.
 */
@WithPatroni(synchronous = true)
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PatroniChaosTest {

    private static PatroniCluster cluster;

    @BeforeAll
    static void start(PatroniCluster shared) {
        cluster = shared; // the class's one cluster (WithPatroni), stopped after the class
    }

    /**
     * A campaign of one fault, whatever the seed: the first fault of a campaign on Patroni is always the failover after
     * a new leader's advance (four participants: two in each election, so the paused leader has a successor).
     */
    private static ChaosCampaign.Summary campaign() throws Exception {
        ChaosCampaign.Config config = ChaosCampaign.Config.of(
                        Duration.ofSeconds(1), System.nanoTime(), 4, ChaosDatabase.patroni(cluster), System.out)
                .withMinimumFaults(1);
        assertThat(new ChaosCampaign(config).plannedFaults(1)).containsExactly(Fault.FAILOVER_AFTER_ADVANCE);
        System.out.println("PatroniChaosTest on " + config.database().label() + ": seed " + config.seed());
        ChaosCampaign.Summary summary = new ChaosCampaign(config).run();
        System.out.println(summary.faultMix());
        System.out.println(summary.line());
        summary.result().violations().forEach(v -> System.out.println("VIOLATION " + v));
        System.out.println(summary.expectation());
        assertThat(summary.exercised()).as(summary.line()).isTrue();
        return summary;
    }

    @Test
    @Order(1)
    void failoversOfASynchronousClusterLeaveNoViolation() throws Exception {
        ChaosCampaign.Summary summary = campaign();

        assertThat(summary.failovers()).as(summary.faultMix()).isGreaterThanOrEqualTo(1);
        assertThat(summary.result().violations()).as(summary.line()).isEmpty();
        assertThat(summary.staleWriteExpected()).isFalse();
        assertThat(summary.passed()).isTrue();
    }

    @Test
    @Order(2)
    void anAsynchronousFailoverAfterAnAdvanceLetsAStaleWriteThroughAndTheCheckerFindsIt() throws Exception {
        cluster.setSynchronous(false, Duration.ofSeconds(60));
        cluster.awaitStandbys(Duration.ofSeconds(60));

        ChaosCampaign.Summary summary = campaign();

        assertThat(summary.failovers()).as(summary.faultMix()).isGreaterThanOrEqualTo(1);
        assertThat(summary.staleWriteExpected()).isTrue();
        assertThat(summary.staleWriteFound())
                .as(summary.result().violations().toString())
                .isTrue();
        assertThat(summary.passed()).isTrue();
        assertThat(summary.expectation()).startsWith("expected violation found");
    }
}
