package dev.leasehold.scenarios.incidents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.leasehold.scenarios.cli.Program;
import dev.leasehold.scenarios.incidents.pause.RealPauseScenario;
import dev.leasehold.scenarios.report.ReportLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Each scenario on the embedded defaults (TestingServer + H2): the broken run reproduces its incident, the Leasehold
 * run holds its invariant, and the program exits 0 only then. The scenarios run side by side (each program run has
 * its own ZooKeeper, databases and child JVMs; junit-platform.properties bounds how many at once).
 */
@Timeout(180)
@Execution(ExecutionMode.CONCURRENT)
class ScenariosTest {

    @TempDir
    Path dir;

    /**
     * Runs the scenario, then reads its report as a reader would (issue 29): no label overflows its bar, overlaps
     * another label or a mark, lies under a pause hatch or outside its picture, at either of the report's widths.
     */
    private Program run(String scenario) {
        Path report = dir.resolve(scenario + ".html");
        Program program = Program.run("run", scenario, "--report", report.toString());
        assertThat(program.exitCode()).as(program.all()).isZero();
        assertThat(program.out())
                .as(program.all())
                .contains("every broken run reproduced its incident and every Leasehold run held");
        String html = readReport(report);
        assertThat(html).contains("class=\"timeline wide\"").contains("class=\"timeline narrow\"");
        assertThat(ReportLayout.problems(html)).as(scenario + "'s report").isEmpty();
        return program;
    }

    private static String readReport(Path report) {
        try {
            return Files.readString(report, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Issue 44: ShedLock's own provider lets the paused replica write the batch again; the fenced one refuses it. */
    @Test
    void shedlockOverrun() {
        Program program = run("shedlock-overrun");
        assertThat(program.out())
                .as(program.all())
                .contains("verdict: batch written by: replica-A, replica-B")
                .contains("verdict: batch written twice: yes")
                .contains("verdict: batch written by: replica-B")
                .contains("verdict: batch written twice: no")
                .containsPattern("verdict: late writes refused: replica-A's with token \\d+ \\(highest \\d+\\)");
    }

    @Test
    void duplicateBatch() {
        Program program = run("duplicate-batch");
        assertThat(program.out())
                .as(program.all())
                .contains("got lease, processing batch-0")
                .contains("verdict: batches processed twice: batch-0")
                .contains("verdict: lease expired mid-work: yes")
                .contains("verdict: overlapping ticks of one pod: yes")
                .contains("verdict: a pod deleted another pod's lease: yes")
                .contains("verdict: batches processed twice: none")
                .contains("verdict: late finishes rejected: batch-0 (pod-A, fence 1)");
        lockForm(program);
    }

    /**
     * Issue 45, the lock form of incident 1: pod-A takes the lock (ttl 2 s), is paused past the ttl, pod-B takes the
     * lock and pushes batch-0, pod-A resumes and pushes. With Spring Integration's JdbcLockRegistry (no token) both
     * pushes land; with FencedLockRegistry the push goes through the gate with the lock's token and pod-A's is refused.
     * Without the gate's check the fenced run would push twice too, and its run would not hold (exit code 1).
     */
    private void lockForm(Program program) {
        Path report = dir.resolve("duplicate-batch.html");
        String out = program.out();
        String broken = out.substring(out.indexOf("-- lock without a token"), out.indexOf("-- fenced lock"));
        String fenced = out.substring(out.indexOf("-- fenced lock"));
        assertThat(broken)
                .as(program.all())
                .contains("verdict: pushes of batch-0 to accounting: 2 (pod-A, pod-B)")
                .contains("pushes batch-0 to accounting (the lock was its only guard): pushed a second time")
                .containsPattern("verdict: pod-B got the lock while pod-A still ran its tick: yes \\(try \\d+\\)")
                .contains("verdict: pod-A's unlock after its push: ConcurrentModificationException");
        assertThat(fenced)
                .as(program.all())
                .contains("verdict: pushes of batch-0 to accounting: 1 (pod-B)")
                .containsPattern("verdict: late pushes refused: pod-A's push of batch-0 with token (\\d+) \\(highest"
                        + " \\d+\\)")
                .contains("verdict: pod-A's unlock after its push: ConcurrentModificationException");
        Matcher tokens = Pattern.compile("pod-A's push of batch-0 with token (\\d+) \\(highest (\\d+)\\)")
                .matcher(fenced);
        assertThat(tokens.find()).isTrue();
        assertThat(Long.parseLong(tokens.group(1))).isLessThan(Long.parseLong(tokens.group(2)));
        // The report draws both lock runs: two pushes (no token) beside one accepted push and one refused.
        String html = readReport(report);
        String noToken = section(html, "lock without a token");
        assertThat(noToken).contains("class=\"verdict reproduced\"").doesNotContain("class=\"write rejected\"");
        String fencedSection = section(html, "fenced lock");
        assertThat(fencedSection)
                .contains("class=\"verdict held\"")
                .contains("class=\"write accepted\"")
                .contains("class=\"write rejected\"")
                .contains("class=\"pause\"");
    }

    /**
     * Also the report as a whole (it was ProgramTest's, on a second run of the same scenario): self-contained, a lane
     * per instance, and a rejected write in the fenced runs.
     */
    @Test
    void staleLeader() {
        Program program = run("stale-leader");
        assertThat(program.out())
                .as(program.all())
                .contains("verdict: customers charged 3 times: c1, c2, c3, c4, c5, c6")
                .contains("verdict: customers charged: none")
                .contains("verdict: customers charged twice: c4")
                .contains("verdict: customers charged exactly once: c1, c2, c3, c4, c5, c6")
                .containsPattern("verdict: stale writes rejected: A's charge of c4 with token \\d+ \\(highest \\d+\\)");
        Path report = dir.resolve("stale-leader.html");
        assertThat(program.out()).contains("report: " + report.toAbsolutePath());
        String html = readReport(report);

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
    }

    @Test
    void minuteSlots() {
        Program program = run("minute-slots");
        assertThat(program.out())
                .as(program.all())
                .containsPattern("slot 03:00: 1 winner\\(s\\) -> replica-\\d")
                .contains("verdict: duplicate slots: 03:03")
                .contains("verdict: missing slots: 03:02, 03:05, 03:06")
                .contains("verdict: slots done: 8 of 8; slots with more than one winner: none")
                .containsPattern("verdict: late completes rejected: 03:03 \\(replica-\\d, fence 1\\)")
                .contains("verdict: missing slots after catch-up: none");
    }

    /** The provider is a real HTTP server on loopback; the broken run must reproduce the double charge there. */
    @Test
    void billingExternal() {
        Program program = run("billing-external");
        assertThat(program.out())
                .as(program.all())
                .contains("verdict: customers charged twice at the provider: c4")
                .containsPattern("verdict: provider charges the gate could not undo: A's c4 with token \\d+"
                        + " \\(highest \\d+\\)")
                .contains("verdict: customers charged exactly once at the provider: c1, c2, c3, c4, c5, c6")
                .containsPattern("verdict: stale intents refused: A's intent for c4 with token \\d+ \\(highest \\d+\\)")
                .contains("verdict: answered from the key, no second charge: c2")
                .containsPattern("verdict: late records refused: relay-\\d's delivery of c2 \\(fence 1\\)")
                .contains("verdict: customers charged twice at the provider: c2")
                .containsPattern("verdict: the window: between a relay's send and its recorded outcome; relay-\\d"
                        + " stalled there \\d+ ms")
                .containsPattern(
                        "verdict: the window without a stall: median \\d+ ms, max \\d+ ms over \\d+" + " deliveries");
    }

    /** Issue 27: without a deadline nobody bills after A hangs; with one, B or C takes over and A's late write is refused. */
    @Test
    void stuckLeader() {
        Program program = run("stuck-leader");
        assertThat(program.out())
                .as(program.all())
                .contains("verdict: customers billed during the run: c1, c2, c3")
                .contains("verdict: customers never billed during the run: c4, c5, c6")
                .contains("verdict: leaders during the run: A")
                .contains("verdict: customers charged exactly once: c1, c2, c3, c4, c5, c6")
                .containsPattern("verdict: leaders in order: A, [BC]")
                .contains("verdict: A gave leadership up: STALLED")
                .containsPattern("verdict: stale writes rejected: A's charge of c4 with token \\d+ \\(highest \\d+\\)");
    }

    @Test
    void realPause() {
        assumeTrue(RealPauseScenario.supported(), "real-pause needs kill -STOP/-CONT (Linux or macOS)");
        Program program = run("real-pause");
        assertThat(program.out())
                .as(program.all())
                .contains("kill -STOP: the whole process is frozen (GC pause, frozen VM), between transactions: H2"
                        + " cannot end an idle transaction")
                .containsPattern("verdict: stale leader child-\\d: its writes with token \\d+ landed after")
                .containsPattern("verdict: stale leader child-\\d: write with token \\d+ rejected \\(highest \\d+\\)")
                .contains("verdict: stale writes in the ledger: 0");
    }

    @Test
    void partitionedBilling() {
        assumeTrue(RealPauseScenario.supported(), "partitioned-billing needs kill -STOP/-CONT (Linux or macOS)");
        Program program = run("partitioned-billing");
        assertThat(program.out())
                .as(program.all())
                .contains("kill -STOP: frozen between transactions: H2 cannot end an idle transaction, while owning"
                        + " partitions")
                .containsPattern("verdict: customer periods charged twice: [1-9]")
                .containsPattern("verdict: late charges refused, partition by partition: \\[\\d+(, \\d+)*\\]")
                .contains("verdict: customer periods charged twice: 0")
                .contains("verdict: stale writes in the ledger: 0");
    }

    /**
     * Without ZooKeeper: the advisory-lock election behind transaction pooling leads twice (a real PgBouncer when
     * LEASEHOLD_TEST_PGBOUNCER_URL is set, else the in-process stand-in on embedded PostgreSQL); the lease election
     * fences the kill -STOPped leader.
     */
    @Test
    void dbLease() {
        assumeTrue(RealPauseScenario.supported(), "db-lease needs kill -STOP/-CONT (Linux or macOS)");
        Program program = run("db-lease");
        assertThat(program.out())
                .as(program.all())
                .containsPattern("verdict: the pooler: (a real PgBouncer|PgBouncer's transaction pooling reproduced)")
                .contains("verdict: two leaders at once: A and B both got pg_try_advisory_lock(42) = true")
                .contains("kill -STOP: the whole process is frozen")
                .containsPattern("verdict: A led with token (\\d+); B took over with token \\d+")
                .containsPattern("verdict: stale leader A: write with token \\d+ rejected \\(highest \\d+\\)")
                .contains("verdict: stale writes in the ledger: 0");
    }

    private static String section(String html, String run) {
        int start = html.indexOf("data-run=\"" + run + "\"");
        assertThat(start).as("a section for run " + run).isPositive();
        int end = html.indexOf("</section>", start);
        return html.substring(start, end);
    }
}
