package dev.leasehold.scenarios.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.scenarios.RunResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Issue 46, the report's summary: when {@code db-lease}'s broken side cannot run, its "as it happened" cell said
 * nothing, and a skipped {@code db-failover} had no row at all, so a reader could not tell "skipped" from "nothing
 * happened". Now the cell says "skipped" with the hint the console printed, and a skipped scenario has its row.
 */
class SkippedRunsTest {

    private static final String ROOT_HINT = "pg_try_advisory_lock needs PostgreSQL; embedded PostgreSQL refuses to run"
            + " as root (give --jdbc jdbc:postgresql:..., or run as an unprivileged user)";
    private static final String PATRONI_HINT =
            "it needs Patroni, etcd and PostgreSQL binaries (apt-get install patroni)";

    @Test
    void aSkippedRunSaysSoInItsCellAndASkippedScenarioHasItsRow() {
        String html = HtmlReport.render(
                List.of(held("db-lease")),
                List.of(
                        new Skipped("db-lease", Skipped.Side.AS_IT_HAPPENED, ROOT_HINT),
                        new Skipped("db-failover", Skipped.Side.BOTH, PATRONI_HINT)));

        List<String> dbLease = cells(html, "db-lease");
        assertThat(dbLease.get(0)).contains("skipped").contains(HtmlReport.escape(ROOT_HINT));
        assertThat(dbLease.get(1)).contains("with Leasehold").doesNotContain("skipped");

        List<String> dbFailover = cells(html, "db-failover");
        assertThat(dbFailover.get(0)).contains("skipped").contains(HtmlReport.escape(PATRONI_HINT));
        assertThat(dbFailover.get(1)).contains("skipped").contains(HtmlReport.escape(PATRONI_HINT));
    }

    /** The "as it happened" and "with Leasehold" cells of a scenario's summary row; fails if it has no row. */
    private static List<String> cells(String html, String scenario) {
        Matcher row = Pattern.compile("<tr data-scenario=\"" + Pattern.quote(scenario)
                        + "\"><td>[^<]*</td><td>(.*?)</td><td>(.*?)</td></tr>")
                .matcher(html);
        assertThat(row.find()).as("a summary row for " + scenario).isTrue();
        return List.of(row.group(1), row.group(2));
    }

    private static RunResult held(String scenario) {
        AtomicLong nanos = new AtomicLong();
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        Timeline timeline = new Timeline("t", quiet, List.of("a"), nanos::get);
        return new RunResult(scenario, "with Leasehold", false, timeline, List.of("held"), true, "held");
    }
}
