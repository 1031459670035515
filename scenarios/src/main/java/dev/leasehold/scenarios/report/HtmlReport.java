package dev.leasehold.scenarios.report;

import dev.leasehold.scenarios.RunResult;
import dev.leasehold.store.Redaction;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One self-contained HTML page (inline SVG and CSS, nothing fetched) with a timeline per run ({@link TimelineSvg}):
 * a lane per instance, leadership and lease periods labelled with their token, pauses hatched, each write marked
 * accepted (green) or rejected (red) with its token and what it concerns (customer, slot, batch), faults in amber,
 * and the verdict: a reproduced incident in amber, a run that held in green, a run that did not go as expected in
 * red. A summary table at the top sets every verdict of each scenario's broken runs beside its Leasehold runs; a
 * legend ({@link ReportLegend}) explains every mark.
 *
 * <p>Each timeline is drawn twice, {@value #WIDE} and {@value #NARROW} pixels wide, and the page shows the one that
 * fits the window: SVG text scaled down to fit would be too small to read, and its labels were laid out for one
 * width.
 */
public final class HtmlReport {

    /** The wide timeline's width: shown when the window is at least {@value #BREAK} pixels wide. */
    static final int WIDE = 1200;
    /** The narrow timeline's width: fits a window 900 pixels wide. */
    static final int NARROW = 840;

    private static final int BREAK = 1280;

    private HtmlReport() {}

    public static void write(Path file, List<RunResult> results) throws IOException {
        write(file, results, List.of());
    }

    /**
     * Writes the report, the summary saying which runs were skipped and why.
     *
     * @param file    where
     * @param results the runs that ran
     * @param skipped the runs, or whole scenarios, that could not run here, with the console's hint
     * @throws IOException if the file cannot be written
     */
    public static void write(Path file, List<RunResult> results, List<Skipped> skipped) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, Redaction.redact(render(results, skipped)), StandardCharsets.UTF_8);
    }

    static String render(List<RunResult> results) {
        return render(results, List.of());
    }

    static String render(List<RunResult> results, List<Skipped> skipped) {
        StringBuilder html = new StringBuilder();
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
                .append("<title>Leasehold scenarios</title><style>")
                .append("body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:")
                .append(WIDE + 20)
                .append("px}h2{margin-top:36px}.held{color:#1a7f37}.reproduced{color:#a04800}.fail{color:#cf222e}")
                .append("p.verdict{padding:6px 10px;border-left:4px solid}")
                .append("p.held{background:#eef8f0}p.reproduced{background:#fff4e5}p.fail{background:#ffebe9}")
                .append(".badge{font-size:13px;font-weight:normal;padding:2px 8px;border-radius:10px;margin-left:10px}")
                .append(".badge.held{background:#dafbe1}.badge.reproduced{background:#ffe2b8}")
                .append(".badge.fail{background:#ffcecb}")
                .append("table.summary{border-collapse:collapse;margin:12px 0 8px;width:100%}")
                .append("table.summary th:first-child{width:14%}table.summary th{width:43%}")
                .append("table.summary td,table.summary th{border:1px solid #ddd;padding:6px 10px;text-align:left;")
                .append("vertical-align:top;font-size:14px}table.summary th{background:#f6f8fa}")
                .append("table.summary ul{margin:2px 0 6px;padding-left:22px}.skipped{color:#57606a}")
                .append(".legend{font-size:14px}.legend ul{list-style:none;padding:0;margin:6px 0}")
                .append(".legend li{display:flex;align-items:flex-start;gap:8px;margin:4px 0}")
                .append(".legend svg{flex:none}.legend code{background:#f6f8fa;padding:0 3px}")
                .append(".chart{overflow-x:auto}.chart svg{display:block;border:1px solid #ddd;background:#fff}")
                .append(".chart svg.narrow{display:none}")
                .append("@media (max-width:")
                .append(BREAK - 1)
                .append("px){body{margin:16px}.chart svg.wide{display:none}.chart svg.narrow{display:block}}")
                .append("</style></head><body>\n<h1>Leasehold scenarios</h1>\n<p>Written ")
                .append(Instant.now())
                .append(". Times are milliseconds from each run's start.")
                .append(" Each incident is run twice: <b class=\"reproduced\">as it happened</b>, where the incident")
                .append(" must come back (amber: the failure is reproduced, as expected), and <b class=\"held\">with")
                .append(
                        " Leasehold</b>, where it must not (green). Red marks a run that did not go as expected.</p>\n");
        html.append(summary(results, skipped));
        html.append(ReportLegend.html());
        int index = 0;
        for (RunResult result : results) {
            index++;
            Outcome outcome = Outcome.of(result);
            html.append("<section class=\"run\" data-scenario=\"")
                    .append(escape(result.scenario()))
                    .append("\" data-run=\"")
                    .append(escape(result.title()))
                    .append("\">\n<h2>")
                    .append(escape(result.scenario()))
                    .append(": ")
                    .append(escape(result.title()))
                    .append("<span class=\"badge ")
                    .append(outcome.css)
                    .append("\">")
                    .append(outcome.badge)
                    .append("</span></h2>\n<div class=\"chart\">\n");
            html.append(TimelineSvg.render(result.timeline(), WIDE, index + "w", "wide"));
            html.append(TimelineSvg.render(result.timeline(), NARROW, index + "n", "narrow"));
            html.append("</div>\n<p class=\"verdict ")
                    .append(outcome.css)
                    .append("\">")
                    .append(outcome.icon)
                    .append(' ')
                    .append(outcome.lead)
                    .append(escape(String.join("; ", result.verdicts())));
            if (!result.asExpected()) {
                html.append(" (expected: ").append(escape(result.expectation())).append(")");
            }
            html.append("</p>\n<details><summary>events</summary><pre>");
            for (Timeline.Event event : result.timeline().events()) {
                html.append(String.format(
                        "t=%5dms %-10s %s%n", event.atMillis(), escape(event.lane()), escape(event.text())));
            }
            html.append("</pre></details>\n</section>\n");
        }
        return html.append("</body></html>\n").toString();
    }

    /** How a run ended, as a reader should see it: a reproduced incident is not a green tick. */
    private enum Outcome {
        HELD("held", "&#10004;", "held", "held: "),
        REPRODUCED("reproduced", "&#9888;", "incident reproduced, as expected", "incident reproduced, as expected: "),
        UNEXPECTED("fail", "&#10008;", "did not go as expected", "did not go as expected: ");

        final String css;
        final String icon;
        final String badge;
        final String lead;

        Outcome(String css, String icon, String badge, String lead) {
            this.css = css;
            this.icon = icon;
            this.badge = badge;
            this.lead = lead;
        }

        static Outcome of(RunResult result) {
            if (!result.asExpected()) {
                return UNEXPECTED;
            }
            return result.broken() ? REPRODUCED : HELD;
        }
    }

    /**
     * A table at the top: one row per scenario, its broken runs beside its Leasehold runs; a run that could not run
     * says "skipped" and why in its cell, and a scenario that could not run at all has its row.
     */
    private static String summary(List<RunResult> results, List<Skipped> skipped) {
        Map<String, List<RunResult>> byScenario = new LinkedHashMap<>();
        for (RunResult result : results) {
            byScenario
                    .computeIfAbsent(result.scenario(), name -> new ArrayList<>())
                    .add(result);
        }
        for (Skipped skip : skipped) {
            byScenario.computeIfAbsent(skip.scenario(), name -> new ArrayList<>());
        }
        StringBuilder table = new StringBuilder("<table class=\"summary\"><tr><th>scenario</th>")
                .append("<th>as it happened</th><th>with Leasehold</th></tr>\n");
        for (Map.Entry<String, List<RunResult>> scenario : byScenario.entrySet()) {
            table.append("<tr data-scenario=\"")
                    .append(escape(scenario.getKey()))
                    .append("\"><td>")
                    .append(escape(scenario.getKey()))
                    .append("</td><td>")
                    .append(cells(scenario.getValue(), true))
                    .append(skips(scenario.getKey(), skipped, true))
                    .append("</td><td>")
                    .append(cells(scenario.getValue(), false))
                    .append(skips(scenario.getKey(), skipped, false))
                    .append("</td></tr>\n");
        }
        return table.append("</table>\n").toString();
    }

    private static String cells(List<RunResult> runs, boolean broken) {
        StringBuilder cell = new StringBuilder();
        for (RunResult run : runs) {
            if (run.broken() != broken) {
                continue;
            }
            Outcome outcome = Outcome.of(run);
            cell.append("<div class=\"")
                    .append(outcome.css)
                    .append("\">")
                    .append(outcome.icon)
                    .append(" <b>")
                    .append(escape(run.title()))
                    .append("</b><ul>");
            for (String verdict : run.verdicts()) {
                cell.append("<li>").append(escape(verdict)).append("</li>");
            }
            cell.append("</ul></div>");
        }
        return cell.toString();
    }

    private static String skips(String scenario, List<Skipped> skipped, boolean broken) {
        StringBuilder cell = new StringBuilder();
        for (Skipped skip : skipped) {
            if (skip.scenario().equals(scenario) && skip.side().covers(broken)) {
                cell.append("<div class=\"skipped\">&#8856; <b>skipped</b>: ")
                        .append(escape(skip.hint()))
                        .append("</div>");
            }
        }
        return cell.toString();
    }

    static String escape(String text) {
        return text.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("\"", "&quot;");
    }
}
