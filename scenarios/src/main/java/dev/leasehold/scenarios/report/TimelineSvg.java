package dev.leasehold.scenarios.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One run's timeline as an SVG of a given width: a time axis, then a lane per instance with its pauses hatched
 * behind everything, its leadership and lease bars (labelled inside, or beside when the label does not fit: see
 * {@link LaneLayout}), its work strokes, its event marks and, under them, their labels (a write's token and what it
 * concerns). Labels are painted last, with a white halo, so nothing is ever painted over them. Every text carries
 * its own font size, so a reader of the SVG (the report's layout test) can check the geometry.
 */
final class TimelineSvg {

    static final String FONTS = "DejaVu Sans, Verdana, sans-serif";
    static final String LEADER = "#3b6fc4";
    static final String LEADER_TEXT = "#1f4e9c";
    static final String LEASE = "#f0c27b";
    static final String LEASE_TEXT = "#5c3700";
    static final String WORK = "#8c8c8c";
    static final String ACCEPTED = "#1a7f37";
    static final String REJECTED = "#cf222e";
    static final String PROBLEM = "#e36209";
    static final String PROBLEM_TEXT = "#a04800";
    static final String INFO = "#555";
    static final String HALO = " stroke=\"#fff\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\"";

    private static final int TOP = 24;
    private static final int RIGHT = 16;
    private static final int BAR_STEP = 19;
    private static final int BAR_HEIGHT = 16;
    private static final int WORK_STEP = 8;
    private static final int MARKS = 16;
    private static final int ROW = 12;

    private TimelineSvg() {}

    /**
     * The SVG of {@code timeline}, {@code width} pixels wide, of class {@code timeline} and {@code variant}; {@code id}
     * makes its pattern's id unique on a page.
     */
    static String render(Timeline timeline, int width, String id, String variant) {
        List<String> lanes = timeline.lanes();
        long end = Math.max(1, timeline.endMillis());
        double left = 70;
        for (String lane : lanes) {
            left = Math.max(left, 6 + TextWidth.of(lane, LaneLayout.BAR_FONT, true) + 10);
        }
        double plotLeft = left;
        double scale = (width - RIGHT - left) / (double) end;
        LaneLayout.Scale x = millis -> plotLeft + millis * scale;

        StringBuilder body = new StringBuilder();
        int y = TOP;
        for (String lane : lanes) {
            y = lane(body, timeline, lane, y, x, end, left, width, id);
        }
        int height = y + 4;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(
                        Locale.ROOT,
                        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline %s\" width=\"%d\" height=\"%d\""
                                + " viewBox=\"0 0 %d %d\" font-family=\"%s\">%n",
                        variant,
                        width,
                        height,
                        width,
                        height,
                        FONTS))
                .append("<defs>")
                .append(hatchPattern("hatch-" + id))
                .append("</defs>\n");
        long step = tickStep(end, scale);
        for (long tick = 0; tick <= end; tick += step) {
            double tx = x.x(tick);
            String text = tick + " ms";
            double tw = TextWidth.of(text, LaneLayout.BAR_FONT, false);
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e6e6e6\"/>",
                    tx,
                    TOP - 4,
                    tx,
                    height - 4));
            if (tx + tw / 2 <= width - 2) {
                svg.append(String.format(
                        Locale.ROOT,
                        "<text x=\"%.1f\" y=\"15\" font-size=\"11\" text-anchor=\"middle\" fill=\"#6e6e6e\">%s</text>",
                        tx,
                        text));
            }
            svg.append('\n');
        }
        return svg.append(body).append("</svg>\n").toString();
    }

    /** The hatch of a pause, as a pattern (the legend draws its swatch with the same one). */
    static String hatchPattern(String patternId) {
        return "<pattern id=\"" + patternId + "\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\""
                + " patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#eeeeee\"/>"
                + "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#a0a0a0\" stroke-width=\"2\"/></pattern>";
    }

    private static int lane(
            StringBuilder svg,
            Timeline timeline,
            String lane,
            int top,
            LaneLayout.Scale x,
            long end,
            double left,
            int width,
            String id) {
        List<Timeline.Span> spans = new ArrayList<>();
        for (Timeline.Span span : timeline.spans()) {
            if (span.lane().equals(lane)) {
                spans.add(span);
            }
        }
        List<Timeline.Event> events = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        for (Timeline.Event event : timeline.events()) {
            if (event.lane().equals(lane)) {
                events.add(event);
                labels.add(EventMarks.label(event));
            }
        }
        LaneLayout layout = new LaneLayout(spans, events, labels, x, end, left, width - 4);
        int barsTop = top + 4;
        int workTop = barsTop + layout.barTracks() * BAR_STEP;
        int marksTop = workTop + layout.workTracks() * WORK_STEP + (layout.workTracks() > 0 ? 2 : 0);
        int labelsTop = marksTop + (events.isEmpty() ? 0 : MARKS);
        int bottom = Math.max(labelsTop + layout.labelRows() * ROW + 4, top + 28);

        svg.append("<g class=\"lane\" data-lane=\"")
                .append(HtmlReport.escape(lane))
                .append("\">");
        for (Timeline.Span span : spans) {
            if (span.kind() == Timeline.SpanKind.PAUSE) {
                double px = x.x(span.fromMillis());
                double pw = Math.max(2, x.x(Math.min(span.toMillis(), end)) - px);
                svg.append(String.format(
                        Locale.ROOT,
                        "<rect class=\"pause\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"url(#hatch-%s)\">"
                                + "%s</rect>",
                        px,
                        top + 2,
                        pw,
                        bottom - top - 4,
                        id,
                        title(span)));
            }
        }
        svg.append(String.format(
                        Locale.ROOT,
                        "<line x1=\"0\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ccc\"/>",
                        bottom,
                        width,
                        bottom))
                .append(String.format(
                        Locale.ROOT,
                        "<text x=\"6\" y=\"%d\" font-size=\"11\" font-weight=\"bold\">%s</text>\n",
                        top + 16,
                        HtmlReport.escape(lane)));
        StringBuilder texts = new StringBuilder();
        for (LaneLayout.Bar bar : layout.bars()) {
            boolean leader = bar.span().kind() == Timeline.SpanKind.LEADERSHIP;
            int by = barsTop + bar.track() * BAR_STEP;
            svg.append(String.format(
                    Locale.ROOT,
                    "<rect class=\"%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">%s</rect>",
                    leader ? "leadership" : "lease",
                    bar.x(),
                    by,
                    bar.width(),
                    BAR_HEIGHT,
                    leader ? LEADER : LEASE,
                    title(bar.span())));
            boolean inside = bar.place() == LaneLayout.Place.INSIDE;
            String fill = inside ? (leader ? "#fff" : LEASE_TEXT) : (leader ? LEADER_TEXT : LEASE_TEXT);
            // A label before its bar ends at the bar (anchored at its end), so it reads as the bar's.
            boolean before = bar.place() == LaneLayout.Place.LEFT;
            texts.append(String.format(
                    Locale.ROOT,
                    "<text class=\"bar-label %s\" x=\"%.1f\" y=\"%d\" font-size=\"11\"%s fill=\"%s\"%s>%s</text>\n",
                    bar.place().name().toLowerCase(Locale.ROOT),
                    before ? bar.x() - LaneLayout.GAP : bar.labelX(),
                    by + 12,
                    before ? " text-anchor=\"end\"" : "",
                    fill,
                    inside ? "" : HALO,
                    HtmlReport.escape(bar.span().label())));
        }
        for (LaneLayout.Stroke stroke : layout.strokes()) {
            svg.append(String.format(
                    Locale.ROOT,
                    "<rect class=\"work\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"6\" fill=\"%s\">%s</rect>",
                    stroke.x(),
                    workTop + stroke.track() * WORK_STEP + 1,
                    stroke.width(),
                    WORK,
                    title(stroke.span())));
        }
        svg.append('\n');
        int cy = marksTop + 8;
        for (Timeline.Event event : events) {
            svg.append(EventMarks.mark(event, x.x(event.atMillis()), cy)).append('\n');
        }
        for (LaneLayout.Label label : layout.labels()) {
            texts.append(String.format(
                    Locale.ROOT,
                    "<text class=\"label\" x=\"%.1f\" y=\"%d\" font-size=\"10\" fill=\"%s\"%s>%s</text>\n",
                    label.x(),
                    labelsTop + 9 + label.row() * ROW,
                    EventMarks.textColor(label.event().kind()),
                    HALO,
                    HtmlReport.escape(label.text())));
        }
        svg.append(texts).append("</g>\n");
        return bottom;
    }

    private static String title(Timeline.Span span) {
        return "<title>" + HtmlReport.escape(span.label()) + " (" + span.fromMillis() + "-" + span.toMillis()
                + " ms)</title>";
    }

    /** The smallest round step whose tick labels do not touch one another. */
    private static long tickStep(long end, double scale) {
        double widest = TextWidth.of(end + " ms", LaneLayout.BAR_FONT, false);
        for (long step : new long[] {1, 2, 5, 10, 20, 50, 100, 250, 500, 1000, 2000, 5000, 10000, 30000, 60000}) {
            if (step * scale >= widest + 16) {
                return step;
            }
        }
        return Math.max(1, end);
    }
}
