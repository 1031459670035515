package dev.leasehold.scenarios;

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
 * One self-contained HTML page (inline SVG and CSS, nothing fetched) with a timeline per run: a lane per instance,
 * leadership and lease periods labelled with their token, pauses shaded, each write marked accepted (green) or
 * rejected (red) with its token and what it concerns (customer, slot, batch), problems in orange, and the verdict:
 * a reproduced incident in amber, a run that held in green, a run that did not go as expected in red. A summary
 * table at the top sets each scenario's broken runs beside its Leasehold run.
 *
 * <p>Why one file of more than 300 lines: the page, its summary, and the SVG of lanes, spans and marks are one picture;
 * split, each piece would need the others' geometry.
 */
final class HtmlReport {

    private static final int WIDTH = 1100;
    private static final int LEFT = 110;
    private static final int RIGHT = 80; // room for the labels of the last events
    private static final int LANE = 68; // three rows of labels under the marks
    private static final int TOP = 28;

    private HtmlReport() {}

    static void write(Path file, List<RunResult> results) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, render(results), StandardCharsets.UTF_8);
    }

    static String render(List<RunResult> results) {
        StringBuilder html = new StringBuilder();
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<title>Leasehold scenarios</title><style>")
                .append("body{font-family:system-ui,sans-serif;margin:24px;color:#222}")
                .append("h2{margin-top:36px}.held{color:#1a7f37}.reproduced{color:#b35900}.fail{color:#cf222e}")
                .append("p.verdict{padding:6px 10px;border-left:4px solid}")
                .append("p.held{background:#eef8f0}p.reproduced{background:#fff4e5}p.fail{background:#ffebe9}")
                .append(".badge{font-size:13px;font-weight:normal;padding:2px 8px;border-radius:10px;margin-left:10px}")
                .append(".badge.held{background:#dafbe1}.badge.reproduced{background:#ffe2b8}")
                .append(".badge.fail{background:#ffcecb}")
                .append("table.summary{border-collapse:collapse;margin:12px 0 8px}")
                .append("table.summary td,table.summary th{border:1px solid #ddd;padding:6px 10px;text-align:left;")
                .append("vertical-align:top;font-size:14px}table.summary th{background:#f6f8fa}")
                .append("svg{border:1px solid #ddd;background:#fff}text{font-size:11px}text.label{font-size:10px}")
                .append(".legend span{display:inline-block;margin-right:16px}")
                .append("</style></head><body>\n<h1>Leasehold scenarios</h1>\n<p>Written ")
                .append(Instant.now())
                .append(". Times are milliseconds from each run's start.")
                .append(" Each incident is run twice: <b class=\"reproduced\">as it happened</b>, where the incident")
                .append(" must come back (amber: the failure is reproduced, as expected), and <b class=\"held\">with")
                .append(
                        " Leasehold</b>, where it must not (green). Red marks a run that did not go as expected.</p>\n");
        html.append(summary(results));
        html.append("<p class=\"legend\"><span>&#9632; <b style=\"color:#4a7bd0\">leadership</b></span>")
                .append("<span><b style=\"color:#e3a23b\">lease / claim</b></span>")
                .append(
                        "<span><b style=\"color:#999\">work</b></span><span><b style=\"color:#777\">pause</b> (hatched)</span>")
                .append("<span><b style=\"color:#1a7f37\">&#9679; write accepted</b> (token below)</span>")
                .append("<span><b style=\"color:#cf222e\">&#10006; write rejected</b></span>")
                .append("<span><b style=\"color:#e36209\">&#9650; problem</b></span>")
                .append("<span>labels under a mark: the customer, slot or batch it concerns</span></p>\n");
        for (RunResult result : results) {
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
                    .append("</span></h2>\n");
            html.append(svg(result.timeline()));
            html.append("<p class=\"verdict ")
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

    /** A table at the top: one row per scenario, its broken runs beside its Leasehold runs. */
    private static String summary(List<RunResult> results) {
        Map<String, List<RunResult>> byScenario = new LinkedHashMap<>();
        for (RunResult result : results) {
            byScenario
                    .computeIfAbsent(result.scenario(), name -> new ArrayList<>())
                    .add(result);
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
                    .append("</td><td>")
                    .append(cells(scenario.getValue(), false))
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
                    .append("</b>: ")
                    .append(escape(
                            run.verdicts().isEmpty() ? "" : run.verdicts().get(0)))
                    .append("</div>");
        }
        return cell.toString();
    }

    private static String svg(Timeline timeline) {
        List<String> lanes = timeline.lanes();
        long end = Math.max(1, timeline.endMillis());
        double scale = (WIDTH - LEFT - RIGHT) / (double) end;
        int height = TOP + lanes.size() * LANE + 10;
        StringBuilder svg = new StringBuilder();
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
                .append(WIDTH)
                .append("\" height=\"")
                .append(height)
                .append("\" viewBox=\"0 0 ")
                .append(WIDTH)
                .append(' ')
                .append(height)
                .append("\">\n")
                .append("<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\"")
                .append(" patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#eee\"/>")
                .append(
                        "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#999\" stroke-width=\"2\"/></pattern></defs>\n");
        for (long tick = 0; tick <= end; tick += tickStep(end)) {
            double x = LEFT + tick * scale;
            svg.append(String.format(
                            "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>",
                            x, TOP - 6, x, height - 6))
                    .append(String.format("<text x=\"%.1f\" y=\"14\" fill=\"#888\">%dms</text>%n", x, tick));
        }
        for (int i = 0; i < lanes.size(); i++) {
            String lane = lanes.get(i);
            int y = TOP + i * LANE;
            svg.append("<g class=\"lane\" data-lane=\"")
                    .append(escape(lane))
                    .append("\">")
                    .append(String.format(
                            "<text x=\"6\" y=\"%d\" font-weight=\"bold\">%s</text>", y + 26, escape(lane)))
                    .append(String.format(
                            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ccc\"/>",
                            LEFT, y + LANE - 2, WIDTH - RIGHT, y + LANE - 2));
            for (Timeline.Span span : timeline.spans()) {
                if (span.lane().equals(lane)) {
                    svg.append(span(span, y, scale, end));
                }
            }
            LabelRows rows = new LabelRows();
            for (Timeline.Event event : timeline.events()) {
                if (event.lane().equals(lane)) {
                    svg.append(event(event, y, scale, rows));
                }
            }
            svg.append("</g>\n");
        }
        return svg.append("</svg>\n").toString();
    }

    private static long tickStep(long end) {
        for (long step : new long[] {100, 250, 500, 1000, 2000, 5000, 10000, 30000}) {
            if (end / step <= 12) {
                return step;
            }
        }
        return 60000;
    }

    private static String span(Timeline.Span span, int y, double scale, long end) {
        double x = LEFT + span.fromMillis() * scale;
        double w = Math.max(2, (Math.min(span.toMillis(), end) - span.fromMillis()) * scale);
        String title =
                "<title>" + escape(span.label()) + " (" + span.fromMillis() + "-" + span.toMillis() + " ms)</title>";
        return switch (span.kind()) {
            case PAUSE -> String.format(
                    "<rect class=\"pause\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\""
                            + " fill=\"url(#hatch)\" opacity=\"0.8\">%s</rect>",
                    x, y + 2, w, LANE - 6, title);
            case LEADERSHIP -> String.format(
                    "<rect class=\"leadership\" x=\"%.1f\" y=\"%d\" width=\"%.1f\""
                            + " height=\"14\" fill=\"#4a7bd0\" opacity=\"0.85\">%s</rect><text x=\"%.1f\" y=\"%d\""
                            + " fill=\"#fff\">%s</text>",
                    x, y + 4, w, title, x + 3, y + 15, escape(span.label()));
            case LEASE -> String.format(
                    "<rect class=\"lease\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"10\""
                            + " fill=\"#e3a23b\" opacity=\"0.6\">%s</rect><text x=\"%.1f\" y=\"%d\" fill=\"#7a4a00\">%s</text>",
                    x, y + 6, w, title, x + 2, y + 14, escape(span.label()));
            case WORK -> String.format(
                    "<rect class=\"work\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"6\"" + " fill=\"#999\">%s</rect>",
                    x, y + 20, w, title);
        };
    }

    private static String event(Timeline.Event event, int y, double scale, LabelRows rows) {
        double x = LEFT + event.atMillis() * scale;
        String title = "<title>t=" + event.atMillis() + "ms " + escape(event.text()) + "</title>";
        String token = event.token() == null ? "" : String.valueOf(event.token());
        String mark =
                switch (event.kind()) {
                    case WRITE_ACCEPTED -> String.format(
                            "<g class=\"write accepted\" data-token=\"%s\"><circle cx=\"%.1f\""
                                    + " cy=\"%d\" r=\"5\" fill=\"#1a7f37\">%s</circle>",
                            token, x, y + 32, title);
                    case WRITE_REJECTED -> String.format(
                            "<g class=\"write rejected\" data-token=\"%s\"><path d=\"M%.1f %d"
                                    + " l10 10 m0 -10 l-10 10\" stroke=\"#cf222e\" stroke-width=\"3\">%s</path>",
                            token, x - 5, y + 27, title);
                    case PROBLEM -> String.format(
                            "<g class=\"problem\"><path d=\"M%.1f %d l6 10 l-12 0 z\" fill=\"#e36209\">" + "%s</path>",
                            x, y + 26, title);
                    case INFO -> String.format(
                            "<g class=\"info\"><circle cx=\"%.1f\" cy=\"%d\" r=\"3\" fill=\"#555\">%s" + "</circle>",
                            x, y + 32, title);
                };
        String label =
                switch (event.kind()) {
                    case WRITE_ACCEPTED -> join(token, event.label());
                    case WRITE_REJECTED -> join(token + " rejected", event.label());
                    case PROBLEM, INFO -> event.label() == null ? "" : event.label();
                };
        if (label.isEmpty()) {
            return mark + "</g>";
        }
        String color =
                switch (event.kind()) {
                    case WRITE_ACCEPTED -> "#1a7f37";
                    case WRITE_REJECTED -> "#cf222e";
                    case PROBLEM -> "#b35900";
                    case INFO -> "#555";
                };
        int row = rows.place(x - 4, label.length() * 5.6);
        if (row < 0) {
            return mark + "</g>"; // no room without overlapping: the mark's tooltip still says it all
        }
        return mark
                + String.format(
                        "<text class=\"label\" x=\"%.1f\" y=\"%d\" fill=\"%s\">%s</text></g>",
                        x - 4, y + 44 + row * 11, color, escape(label));
    }

    private static String join(String first, String second) {
        return second == null ? first : first + " " + second;
    }

    /**
     * Three rows of labels under a lane's marks: a label goes to the first row where it does not overlap the one
     * before it, or nowhere (-1) when all three are taken there.
     */
    private static final class LabelRows {
        private final double[] freeFrom = {Double.NEGATIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NEGATIVE_INFINITY
        };

        int place(double x, double width) {
            for (int row = 0; row < freeFrom.length; row++) {
                if (x >= freeFrom[row]) {
                    freeFrom[row] = x + width + 4;
                    return row;
                }
            }
            return -1;
        }
    }

    static String escape(String text) {
        return text.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("\"", "&quot;");
    }
}
