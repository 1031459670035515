package dev.leasehold.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The command line: help, list, exit codes for bad arguments and unreachable services, and the HTML report. */
@Timeout(120)
class ProgramTest {

    @TempDir
    Path dir;

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
                        + " db-failover (see --help)");
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

    @Test
    void anUnreachableZooKeeperIsOneLineAndExitCode2() {
        Program program = Program.run("run", "duplicate-batch", "--zk", "127.0.0.1:1");
        assertThat(program.exitCode()).as(program.all()).isEqualTo(2);
        assertThat(program.err().strip())
                .as(program.all())
                .isEqualTo("error: cannot reach ZooKeeper at 127.0.0.1:1 within 5 s");
        Program verbose = Program.run("run", "duplicate-batch", "--zk", "127.0.0.1:1", "--verbose");
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
        Program program = Program.run("chaos", "--duration", "5s", "--participants", "2", "--seed", "7");
        assertThat(program.exitCode()).as(program.all()).isZero();
        assertThat(program.out())
                .as(program.all())
                .contains("chaos: seed 7, 5 s, 2 participants", "(replay with --seed 7)", "fault mix: ");
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

    /** The report: self-contained, a lane per instance, and a rejected write in the fenced runs. */
    @Test
    void theReportHasALanePerInstanceAndTheRejectedWrites() throws Exception {
        Path report = dir.resolve("report.html");
        Program program = Program.run("run", "stale-leader", "--report", report.toString());
        assertThat(program.exitCode()).as(program.all()).isZero();
        assertThat(program.out()).contains("report: " + report.toAbsolutePath());
        String html = Files.readString(report, StandardCharsets.UTF_8);

        assertThat(html).startsWith("<!DOCTYPE html>");
        assertThat(html)
                .doesNotContain("src=")
                .doesNotContain("href=")
                .doesNotContain("<link")
                .doesNotContain("<script");
        for (String run : new String[] {"uncoordinated", "pinned", "lease-only", "fenced"}) {
            String section = section(html, run);
            assertThat(section)
                    .as(run)
                    .contains("<svg")
                    .contains("data-lane=\"A\"")
                    .contains("data-lane=\"B\"")
                    .contains("data-lane=\"C\"");
            // A reproduced incident reads as one (amber), never as a green tick; the Leasehold run reads as held.
            assertThat(section)
                    .as(run)
                    .contains(run.equals("fenced") ? "class=\"verdict held\"" : "class=\"verdict reproduced\"")
                    .doesNotContain("class=\"verdict fail\"");
        }
        assertThat(section(html, "uncoordinated"))
                .contains("incident reproduced, as expected: customers charged 3" + " times")
                .doesNotContain("&#10004;");
        // The summary table at the top: the scenario's broken runs beside its Leasehold run.
        String summary = html.substring(html.indexOf("<table class=\"summary\">"), html.indexOf("</table>"));
        assertThat(summary)
                .contains("<tr data-scenario=\"stale-leader\">")
                .contains("<b>lease-only</b><ul><li>customers charged twice: c4</li></ul>")
                .contains("<b>fenced</b><ul><li>customers charged exactly once")
                .containsPattern("<li>stale writes rejected: A's charge of c4 with token \\d+ \\(highest \\d+\\)</li>");
        // Each charge is labelled with its customer, so a reader sees who was charged twice without expanding events.
        assertThat(section(html, "lease-only")).contains(">c4</text>");
        String fenced = section(html, "fenced");
        assertThat(fenced).containsPattern(">\\d+ rejected c4</text>");
        assertThat(fenced)
                .contains("class=\"write rejected\"")
                .contains("class=\"leadership\"")
                .contains("class=\"pause\"");
        Matcher rejected = Pattern.compile("class=\"write rejected\" data-token=\"(\\d+)\"")
                .matcher(fenced);
        assertThat(rejected.find()).isTrue();
        assertThat(section(html, "lease-only")).doesNotContain("class=\"write rejected\"");
        assertThat(ReportLayout.problems(html)).isEmpty();
    }

    private static String section(String html, String run) {
        int start = html.indexOf("data-run=\"" + run + "\"");
        assertThat(start).as("a section for run " + run).isPositive();
        int end = html.indexOf("</section>", start);
        return html.substring(start, end);
    }
}
