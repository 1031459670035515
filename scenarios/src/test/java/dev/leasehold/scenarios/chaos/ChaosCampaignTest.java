package dev.leasehold.scenarios.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.leasehold.testkit.ChaosDatabase;
import dev.leasehold.testkit.ChildJvm;
import dev.leasehold.testkit.Ensemble;
import dev.leasehold.testkit.NotRoot;
import dev.leasehold.testkit.PatroniCluster;
import dev.leasehold.testkit.WithPatroni;
import dev.leasehold.testkit.ZooKeeperPackage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Short seeded campaigns inside mvn verify: in one JVM on H2 and on PostgreSQL 17, with participants in child JVMs,
 * and against an ensemble the campaign did not start. The seed is printed, and named in every failure message, so a
 * failing campaign can be replayed with {@code chaos --seed N}. Each test picks, from its starting seed on, the
 * first seed whose first faults include the ones that test is about, so they are not left to chance. The campaigns
 * run side by side with each other, never with another class's tests (junit-platform.properties): a campaign mostly
 * waits, since its faults last a session each, and each has its own database, ensemble and participants. The
 * campaigns on a real MariaDB server and on Patroni are here too, for the same reason; they skip without their
 * servers.
 */
@Timeout(240)
class ChaosCampaignTest {

    /**
     * The shortest duration: each campaign here runs until it has injected the faults its seed was picked for
     * ({@link #seedWith}'s {@code n}), and no longer. A clock would only add more of the same faults.
     */
    private static final Duration UNTIL_FAULTS = Duration.ofMillis(1);

    /**
     * What this test's campaign said. The campaigns run side by side (they mostly wait: faults last a session), so
     * each one's lines are kept apart and printed as one block when it ends.
     */
    private final ByteArrayOutputStream said = new ByteArrayOutputStream();

    private final PrintStream out = new PrintStream(said, true, StandardCharsets.UTF_8);

    @AfterEach
    void printWhatTheCampaignSaid() {
        synchronized (System.out) {
            System.out.print(said.toString(StandardCharsets.UTF_8));
            System.out.flush();
        }
    }

    private static long startSeed() {
        return Long.getLong("leasehold.chaos.seed", System.nanoTime());
    }

    /**
     * The first seed from {@code seed} on whose first {@code n} faults include every one of {@code wanted}, and a
     * campaign that injects at least those {@code n}, however long they take.
     */
    private static ChaosCampaign.Config seedWith(ChaosCampaign.Config config, int n, Fault... wanted) {
        return seedWhere(config, n, planned -> planned.containsAll(List.of(wanted)));
    }

    private static ChaosCampaign.Config seedWhere(ChaosCampaign.Config config, int n, Predicate<List<Fault>> wanted) {
        for (long seed = config.seed(); ; seed++) {
            ChaosCampaign.Config candidate = config.withSeed(seed).withMinimumFaults(n);
            if (wanted.test(new ChaosCampaign(candidate).plannedFaults(n))) {
                return candidate;
            }
        }
    }

    private ChaosCampaign.Summary campaign(ChaosCampaign.Config config) throws Exception {
        long seed = config.seed();
        out.println("ChaosCampaignTest on " + config.database().label() + ": seed " + seed
                + " (replay: -Dleasehold.chaos.seed=" + seed + ")");
        ChaosCampaign.Summary summary = new ChaosCampaign(config).run();
        out.println(summary.faultMix());
        out.println(summary.longestGap());
        out.println(summary.line());
        assertThat(summary.result().violations())
                .as("seed %d: %s", seed, summary.line())
                .isEmpty();
        assertThat(summary.exercised()).as("seed %d: %s", seed, summary.line()).isTrue();
        assertThat(summary.line())
                .as("seed %d", seed)
                .doesNotContain("grants=0 ")
                .doesNotContain("faults=0 ")
                .doesNotContain("writes accepted=0 ");
        return summary;
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aShortCampaignOnH2LeavesNoViolation() throws Exception {
        try (ChaosDatabase h2 = ChaosDatabase.h2()) {
            ChaosCampaign.Config config = seedWith(
                    ChaosCampaign.Config.of(UNTIL_FAULTS, startSeed(), 5, h2, out),
                    3,
                    Fault.RESTART_DATABASE,
                    Fault.PAUSE);
            ChaosCampaign.Summary summary = campaign(config);
            assertThat(summary.faultMix()).contains("restart database", "pause", "3-server TestingCluster");
        }
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aShortCampaignOnPostgresLeavesNoViolation() throws Exception {
        NotRoot.require();
        try (ChaosDatabase postgres = ChaosDatabase.embeddedPostgres()) {
            ChaosCampaign.Config config = seedWith(
                    ChaosCampaign.Config.of(UNTIL_FAULTS, startSeed(), 5, postgres, out),
                    4,
                    Fault.RESTART_DATABASE,
                    Fault.TERMINATE_DB_CONNECTIONS);
            ChaosCampaign.Summary summary = campaign(config);
            assertThat(summary.faultMix()).contains("restart database", "terminate db connections");
        }
    }

    /**
     * The same campaign with the gate taken out: a paused leader's write, let go after a new leader has written,
     * lands with its old token, and the checker must say so. This is what makes a clean campaign mean something.
     */
    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void withoutTheGateTheCheckerFindsTheStaleWritesThatLand() throws Exception {
        try (ChaosDatabase h2 = ChaosDatabase.h2()) {
            ChaosCampaign.Config config = seedWhere(
                    ChaosCampaign.Config.of(UNTIL_FAULTS, startSeed(), 4, h2, out)
                            .withUnfenced(true),
                    4,
                    planned -> planned.stream().filter(Fault.PAUSE::equals).count() >= 3);
            out.println("ChaosCampaignTest, unfenced on H2: seed " + config.seed());
            ChaosCampaign.Summary summary = new ChaosCampaign(config).run();
            out.println(summary.faultMix());
            out.println(summary.line());
            assertThat(summary.faultMix()).contains("UNFENCED");
            assertThat(summary.result().violations())
                    .as("seed %d: %s", config.seed(), summary.line())
                    .anyMatch(v -> v.startsWith("rule 2:"));
        }
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void participantsInChildJvmsArePausedWithSigstopAndCrashed() throws Exception {
        assumeTrue(ChildJvm.signalsSupported(), "kill -STOP needs Linux or macOS");
        try (ChaosDatabase h2 = ChaosDatabase.h2()) {
            ChaosCampaign.Config config = seedWith(
                    ChaosCampaign.Config.of(UNTIL_FAULTS, startSeed(), 4, h2, out)
                            .withProcesses(true),
                    3,
                    Fault.PAUSE,
                    Fault.CRASH_PARTICIPANT);
            ChaosCampaign.Summary summary = campaign(config);
            assertThat(summary.faultMix()).contains("in child JVMs", "pause", "crash participant");
            assertThat(said.toString(StandardCharsets.UTF_8))
                    .contains("kill -STOP (the whole JVM)", "with kill -KILL and start it again");
        }
        assertThat(ProcessHandle.current()
                        .children()
                        .filter(ProcessHandle::isAlive)
                        .filter(child -> child.info()
                                .arguments()
                                .map(List::of)
                                .orElse(List.of())
                                .contains(ChaosChild.class.getName()))
                        .toList())
                .as("no child JVM outlives the campaign")
                .isEmpty();
    }

    /** On three server processes of Debian's ZooKeeper: kill -9 and kill -STOP of servers, the quorum leader too. */
    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aShortCampaignOnZooKeeperServerProcessesLeavesNoViolation() throws Exception {
        assumeTrue(ZooKeeperPackage.require().isPresent(), ZooKeeperPackage.HINT);
        try (ChaosDatabase h2 = ChaosDatabase.h2()) {
            ChaosCampaign.Config config = seedWith(
                    ChaosCampaign.Config.of(UNTIL_FAULTS, startSeed(), 3, h2, out)
                            .withVariant(Variant.defaults().withEnsemble(Variant.EnsembleKind.PROCESSES)),
                    3,
                    Fault.FREEZE_SERVER,
                    Fault.KILL_QUORUM_LEADER);
            ChaosCampaign.Summary summary = campaign(config);
            assertThat(summary.faultMix())
                    .contains("3 ZooKeeper server processes", "freeze server", "kill quorum leader");
        }
        assertThat(ProcessHandle.current()
                        .children()
                        .filter(ProcessHandle::isAlive)
                        .filter(child -> child.info().commandLine().orElse("").contains("QuorumPeerMain"))
                        .toList())
                .as("no ZooKeeper server outlives the campaign")
                .isEmpty();
    }

    /** Lease elections on the database, no ZooKeeper: participants cut off the database and paused must give up. */
    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aShortCampaignWithLeaseElectionsLeavesNoViolation() throws Exception {
        try (ChaosDatabase h2 = ChaosDatabase.h2()) {
            ChaosCampaign.Config lease = ChaosCampaign.Config.of(UNTIL_FAULTS, startSeed(), 3, h2, out)
                    .withVariant(Variant.defaults().withLease());
            assertThat(new ChaosCampaign(lease).faultWeights())
                    .containsEntry(Fault.KILL_SERVER, 0)
                    .containsEntry(Fault.CLIENT_SIDE_EXPIRY, 0)
                    .containsEntry(Fault.PAUSE, 20);
            ChaosCampaign.Summary summary = campaign(seedWith(lease, 3, Fault.PAUSE, Fault.PARTITION));
            assertThat(summary.faultMix()).contains("lease elections on the database", "pause", "partition");
        }
    }

    /** Partition ownership: every partition is an election and a resource of its own, judged on its own. */
    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aShortCampaignWithPartitionOwnershipLeavesNoViolation() throws Exception {
        try (ChaosDatabase h2 = ChaosDatabase.h2()) {
            ChaosCampaign.Config partitions = ChaosCampaign.Config.of(UNTIL_FAULTS, startSeed(), 3, h2, out)
                    .withVariant(Variant.defaults().withPartitions(12));
            assertThat(new ChaosCampaign(partitions).elections()).hasSize(12).contains("partition-0", "partition-11");
            ChaosCampaign.Summary summary = campaign(seedWith(partitions, 3, Fault.PAUSE, Fault.KILL_QUORUM_LEADER));
            assertThat(summary.faultMix()).contains("12 partitions (FencedPartitions)", "pause");
            assertThat(summary.result().violations()).isEmpty();
        }
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aGivenEnsembleIsUsedButItsServersAreNeverKilled() throws Exception {
        // a server the test kit starts on ports no other campaign of this JVM was given, then handed over as given
        try (Ensemble zk = Ensemble.start(1, 200);
                ChaosDatabase h2 = ChaosDatabase.h2()) {
            String connect = zk.connectString() + "/given";
            try (CuratorFramework client =
                    CuratorFrameworkFactory.newClient(zk.connectString().toString(), new RetryOneTime(100))) {
                client.start();
                client.create().forPath("/given"); // ZooKeeper needs the chroot to exist
            }
            ChaosCampaign.Config given = ChaosCampaign.Config.of(UNTIL_FAULTS, startSeed(), 3, h2, out)
                    .withZkConnect(connect);
            assertThat(new ChaosCampaign(given).faultWeights())
                    .containsEntry(Fault.KILL_SERVER, 0)
                    .containsEntry(Fault.KILL_QUORUM_LEADER, 0)
                    .containsEntry(Fault.ENSEMBLE_DOWN, 0)
                    .containsEntry(Fault.PARTITION, 20);
            ChaosCampaign.Summary summary = campaign(seedWith(given, 2, Fault.PARTITION));
            assertThat(summary.faultMix())
                    .contains("ensemble " + connect)
                    .doesNotContain("kill")
                    .doesNotContain("ensemble down");
            try (CuratorFramework client =
                    CuratorFrameworkFactory.newClient(zk.connectString().toString(), new RetryOneTime(100))) {
                client.start();
                assertThat(client.getChildren().forPath("/"))
                        .as("the server still serves, and nothing was" + " written outside the chroot")
                        .doesNotContain("chaos");
            }
        }
    }

    /** A real MariaDB server (LEASEHOLD_TEST_MARIADB_URL): any seed, at least 2 faults for 15 s. */
    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @EnabledIfEnvironmentVariable(
            named = "LEASEHOLD_TEST_MARIADB_URL",
            matches = ".*\\S.*",
            disabledReason = "MariaDB campaign skipped: start a server with '.ci/mariadb start /tmp/mdb' and run with"
                    + " LEASEHOLD_TEST_MARIADB_URL=<the URL it prints>")
    void aShortCampaignOnMariaDbLeavesNoViolation() throws Exception {
        String url = System.getenv("LEASEHOLD_TEST_MARIADB_URL");
        try (ChaosDatabase mariaDb = ChaosDatabase.external(url, null, null)) {
            ChaosCampaign.Summary summary =
                    campaign(ChaosCampaign.Config.of(Duration.ofSeconds(15), startSeed(), 4, mariaDb, out)
                            .withMinimumFaults(2));
            assertThat(summary.faultMix()).contains("jdbc:mariadb:");
        }
    }

    /**
     * {@code chaos --patroni} and {@code --patroni-async} in short: the campaign with its store on one Patroni cluster
     * (two PostgreSQL 15 members), first in synchronous mode (strict), where failovers must leave no violation, then
     * switched to asynchronous replication, where the first fault (replication paused before a new leader's advance,
     * the primary killed right after) must let a stale write through and the checker must find it. One cluster for
     * both (a Patroni start costs seconds), switched between the modes through Patroni's REST API; the two run in
     * this order, side by side with the other campaigns.
     */
    @Nested
    @WithPatroni(synchronous = true)
    @Timeout(300)
    @Execution(ExecutionMode.CONCURRENT)
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    class OnPatroni {

        private static PatroniCluster cluster;

        @BeforeAll
        static void start(PatroniCluster shared) {
            cluster = shared; // the class's one cluster (WithPatroni), stopped after the class
        }

        /**
         * A campaign of one fault, whatever the seed: the first fault of a campaign on Patroni is always the failover
         * after a new leader's advance (four participants: two in each election, so the paused leader has a
         * successor).
         */
        private ChaosCampaign.Summary patroniCampaign() throws Exception {
            ChaosCampaign.Config config = ChaosCampaign.Config.of(
                            Duration.ofSeconds(1), System.nanoTime(), 4, ChaosDatabase.patroni(cluster), out)
                    .withMinimumFaults(1);
            assertThat(new ChaosCampaign(config).plannedFaults(1)).containsExactly(Fault.FAILOVER_AFTER_ADVANCE);
            out.println("ChaosCampaignTest on " + config.database().label() + ": seed " + config.seed());
            ChaosCampaign.Summary summary = new ChaosCampaign(config).run();
            out.println(summary.faultMix());
            out.println(summary.line());
            summary.result().violations().forEach(v -> out.println("VIOLATION " + v));
            out.println(summary.expectation());
            assertThat(summary.exercised()).as(summary.line()).isTrue();
            return summary;
        }

        @Test
        @Order(1)
        @Execution(ExecutionMode.SAME_THREAD)
        void failoversOfASynchronousClusterLeaveNoViolation() throws Exception {
            ChaosCampaign.Summary summary = patroniCampaign();

            assertThat(summary.failovers()).as(summary.faultMix()).isGreaterThanOrEqualTo(1);
            assertThat(summary.result().violations()).as(summary.line()).isEmpty();
            assertThat(summary.staleWriteExpected()).isFalse();
            assertThat(summary.passed()).isTrue();
        }

        @Test
        @Order(2)
        @Execution(ExecutionMode.SAME_THREAD)
        void anAsynchronousFailoverAfterAnAdvanceLetsAStaleWriteThroughAndTheCheckerFindsIt() throws Exception {
            cluster.setSynchronous(false, Duration.ofSeconds(60));
            cluster.awaitStandbys(Duration.ofSeconds(60));

            ChaosCampaign.Summary summary = patroniCampaign();

            assertThat(summary.failovers()).as(summary.faultMix()).isGreaterThanOrEqualTo(1);
            assertThat(summary.staleWriteExpected()).isTrue();
            assertThat(summary.staleWriteFound())
                    .as(summary.result().violations().toString())
                    .isTrue();
            assertThat(summary.passed()).isTrue();
            assertThat(summary.expectation()).startsWith("expected violation found");
        }
    }
}
