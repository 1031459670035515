package dev.leasehold.scenarios.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.recipes.FencedLeaderLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What a new user reads first: the help, the version, and {@code inspect} pointed one level too high. */
@Timeout(120)
class CommandLineTest {

    @Test
    void helpSaysThatNoCommandRunsEveryScenarioAndKeepsTheReportPathOnOneLine() {
        Program help = Program.run("--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).as(help.all()).contains("With no command, runs every scenario");
        Program run = Program.run("run", "--help");
        assertThat(run.out().lines().filter(l -> l.contains("leasehold-report")))
                .as(run.all())
                .singleElement()
                .satisfies(line -> assertThat(line).contains("./leasehold-report.html"));
    }

    @Test
    void versionIsTheBuildsVersionNotAHardCodedOne() {
        Program version = Program.run("-V");
        assertThat(version.exitCode()).isZero();
        assertThat(version.out().strip()).as(version.all()).isEqualTo("leasehold-scenarios " + projectVersion());
    }

    @Test
    void inspectOnAnElectionRootNamesTheElectionsBelowIt() throws Exception {
        try (TestingServer server = new TestingServer();
                CuratorFramework client = CuratorFrameworkFactory.newClient(
                        server.getConnectString(), 10_000, 5_000, new RetryOneTime(100))) {
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            try (FencedLeaderLatch billing = new FencedLeaderLatch(client, "/leasehold/election/billing", "b-1");
                    FencedLeaderLatch reports = new FencedLeaderLatch(client, "/leasehold/election/reports", "r-1")) {
                billing.start();
                reports.start();
                assertThat(billing.await(30, TimeUnit.SECONDS)).isTrue();
                assertThat(reports.await(30, TimeUnit.SECONDS)).isTrue();

                Program root = Program.run("inspect", "--zk", server.getConnectString(), "/leasehold/election");

                assertThat(root.exitCode()).as(root.all()).isZero();
                assertThat(root.out())
                        .as(root.all())
                        .contains("election /leasehold/election: 0 participants")
                        .contains("/leasehold/election/billing (1 participant, leader b-1)")
                        .contains("/leasehold/election/reports (1 participant, leader r-1)");
                int negotiated = client.getZookeeperClient().getZooKeeper().getSessionTimeout(); // asked 10,000 too
                assertThat(root.out())
                        .as(root.all())
                        .contains("this inspection's session timeout: " + negotiated + " ms");
                Program json =
                        Program.run("inspect", "--zk", server.getConnectString(), "/leasehold/election", "--json");
                assertThat(json.out())
                        .as(json.all())
                        .contains("\"below\":[\"/leasehold/election/billing\",\"/leasehold/election/reports\"]");
            }
        }
    }

    @Test
    void rebaseRefusesTokenZeroAsTheGateDoesBeforeTouchingTheDatabase() {
        Program zero = Program.run(
                "rebase",
                "--jdbc",
                "jdbc:h2:mem:rebase-zero",
                "--resource",
                "ledger",
                "--token",
                "0",
                "--operator",
                "alice",
                "--reason",
                "r",
                "--yes");
        assertThat(zero.exitCode()).as(zero.all()).isEqualTo(2);
        assertThat(zero.err().lines()).as(zero.all()).hasSize(1);
        assertThat(zero.err()).as(zero.all()).contains("--token must be 1 or more");
        Program help = Program.run("rebase", "--help");
        assertThat(help.out()).as(help.all()).contains("1 or more").doesNotContain("0 or more");
    }

    /** The version Maven builds, from the surefire system property the pom sets, else the pom next to the module. */
    private static String projectVersion() {
        try {
            String pom = java.nio.file.Files.readString(java.nio.file.Path.of("pom.xml"));
            java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                            "<parent>.*?<version>([^<]+)</version>", java.util.regex.Pattern.DOTALL)
                    .matcher(pom);
            assertThat(m.find()).as("the module pom names its parent's version").isTrue();
            return m.group(1);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
