package dev.leasehold.scenarios.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The command line: help, list, exit codes for bad arguments and unreachable services. The HTML report of a run is
 * read in {@code incidents.ScenariosTest.staleLeader()}, on the run that test makes anyway.
 */
@Timeout(120)
class ProgramTest {

    @Test
    void helpAndListExitZero() {
        Program help = Program.run("--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out())
                .contains("Usage: leasehold-scenarios")
                .contains("run")
                .contains("list")
                .contains("--zk")
                .contains("--jdbc")
                .contains("--report");
        Program list = Program.run("list");
        assertThat(list.exitCode()).isZero();
        assertThat(list.out())
                .contains("duplicate-batch")
                .contains("stale-leader")
                .contains("minute-slots")
                .contains("real-pause")
                .contains("billing-external")
                .contains("partitioned-billing")
                .contains("db-lease")
                .contains("stuck-leader")
                .contains("db-failover");
    }

    @Test
    void anUnknownScenarioIsOneClearLineAndExitCode2() {
        Program program = Program.run("run", "no-such-scenario");
        assertThat(program.exitCode()).as(program.all()).isEqualTo(2);
        assertThat(program.err().strip())
                .as(program.all())
                .isEqualTo("error: unknown scenario 'no-such-scenario'; known: duplicate-batch, stale-leader,"
                        + " minute-slots, real-pause, billing-external, partitioned-billing, db-lease, stuck-leader,"
                        + " db-failover, shedlock-overrun (see --help)");
        assertThat(program.out()).isEmpty();
    }

    @Test
    void aBadFlagIsOneClearLineAndExitCode2() {
        Program program = Program.run("run", "--no-such-flag");
        assertThat(program.exitCode()).as(program.all()).isEqualTo(2);
        assertThat(program.err().lines()).as(program.all()).hasSize(1);
        assertThat(program.err()).contains("--no-such-flag");
        Program badDuration = Program.run("chaos", "--duration", "not-a-duration");
        assertThat(badDuration.exitCode()).isEqualTo(2);
        assertThat(badDuration.err().lines()).as(badDuration.all()).hasSize(1);
    }

    /** The scenarios are ordered by latches, not dice: a seed would change nothing, so there is none to give. */
    @Test
    void theScenariosTakeNoSeed() {
        Program program = Program.run("--seed", "7", "list");
        assertThat(program.exitCode()).as(program.all()).isEqualTo(2);
        assertThat(program.err().lines())
                .as(program.all())
                .singleElement()
                .asString()
                .contains("--seed");
        assertThat(Program.run("--help").out()).doesNotContain("--seed");
    }

    /** Both runs wait out the 5 s connection timeout, so they wait side by side. */
    @Test
    void anUnreachableZooKeeperIsOneLineAndExitCode2() {
        CompletableFuture<Program> verboseRun = CompletableFuture.supplyAsync(
                () -> Program.run("run", "duplicate-batch", "--zk", "127.0.0.1:1", "--verbose"));
        Program program = Program.run("run", "duplicate-batch", "--zk", "127.0.0.1:1");
        assertThat(program.exitCode()).as(program.all()).isEqualTo(2);
        assertThat(program.err().strip())
                .as(program.all())
                .isEqualTo("error: cannot reach ZooKeeper at 127.0.0.1:1 within 5 s");
        Program verbose = verboseRun.join();
        assertThat(verbose.exitCode()).isEqualTo(2);
        assertThat(verbose.err()).as("a stack trace with --verbose").contains("\tat ");
    }

    @Test
    void anUnreachableDatabaseIsOneLineAndExitCode2() {
        Program program = Program.run(
                "run", "duplicate-batch", "--jdbc", "jdbc:postgresql://127.0.0.1:1/none", "--user", "nobody");
        assertThat(program.exitCode()).as(program.all()).isEqualTo(2);
        assertThat(program.err().lines()).as(program.all()).hasSize(1);
        assertThat(program.err()).startsWith("error: cannot reach the database at jdbc:postgresql://127.0.0.1:1/none");
        assertThat(program.err()).doesNotContain("\tat ");
    }

    @Test
    void chaosRejectsBadOptionsWithOneLineAndExitCode2() {
        Program help = Program.run("chaos", "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out())
                .contains(
                        "--processes",
                        "--zk",
                        "--jdbc",
                        "--embedded-postgres",
                        "--seed",
                        "--duration",
                        "--participants",
                        "--unfenced",
                        "--ensemble",
                        "--election",
                        "--partitions");
        String[][] bad = {
            {"chaos", "--ensemble", "docker"},
            {"chaos", "--election", "etcd"},
            {"chaos", "--partitions", "0"},
            {"chaos", "--election", "lease", "--partitions", "12"},
            {"chaos", "--election", "lease", "--zk", "127.0.0.1:2181"},
            {"chaos", "--partitions", "12", "--processes"},
            {"chaos", "--participants", "1"},
            {"chaos", "--duration", "0s"},
            {"chaos", "--duration", "soon"},
            {"chaos", "--jdbc", "jdbc:h2:mem:x", "--embedded-postgres"},
            {"chaos", "--zk", "127.0.0.1:1"},
            {"chaos", "--jdbc", "jdbc:h2:mem:gone-between-connections"},
            {"chaos", "--jdbc", "jdbc:postgresql://127.0.0.1:1/none", "--user", "nobody"},
        };
        for (String[] args : bad) {
            Program program = Program.run(args);
            assertThat(program.exitCode()).as(program.all()).isEqualTo(2);
            assertThat(program.err().lines()).as(program.all()).hasSize(1);
            assertThat(program.err()).as(program.all()).startsWith("error: ").doesNotContain("\tat ");
        }
    }

    @Test
    void chaosRefusesAChrootThatDoesNotExist() throws Exception {
        try (TestingServer zk = new TestingServer(true)) {
            Program program = Program.run("chaos", "--zk", zk.getConnectString() + "/missing");
            assertThat(program.exitCode()).as(program.all()).isEqualTo(2);
            assertThat(program.err().strip())
                    .as(program.all())
                    .isEqualTo("error: --zk: the chroot /missing does" + " not exist on ZooKeeper at "
                            + zk.getConnectString());
        }
    }

    @Test
    void aShortChaosRunPrintsItsSeedAndSummaryAndExitsZero() {
        Program program = Program.run("chaos", "--duration", "1s", "--participants", "2", "--seed", "7");
        assertThat(program.exitCode()).as(program.all()).isZero();
        assertThat(program.out())
                .as(program.all())
                .contains("chaos: seed 7, 1 s, 2 participants", "(replay with --seed 7)", "fault mix: ");
        assertThat(program.out()
                        .lines()
                        .filter(l -> l.startsWith("seed=7 faults="))
                        .toList())
                .as(program.all())
                .singleElement()
                .asString()
                .matches("seed=7 faults=\\d+ grants=\\d+ writes accepted=\\d+ stale"
                        + " rejected=\\d+ overlapping beliefs=\\d+ max time without a leader=\\d+ms violations=0");
    }
}
