package dev.leasehold.scenarios.report;

import java.util.Locale;

/**
 * The report's legend: every mark a timeline can show, each with a swatch drawn exactly as the timelines draw it
 * (same colours, same hatch, same event shapes from {@link EventMarks}) and a sentence saying what it means.
 */
final class ReportLegend {

    private static final String SWATCH = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"44\" height=\"20\""
            + " viewBox=\"0 0 44 20\" font-family=\"" + TimelineSvg.FONTS + "\">";

    private ReportLegend() {}

    static String html() {
        StringBuilder legend = new StringBuilder("<div class=\"legend\"><p><b>How to read a timeline</b>: a row per")
                .append(" instance (a pod, a replica, a scheduler, a relay); time runs left to right in milliseconds")
                .append(" from the run's start. Hover any mark or bar for its line of the log, or open")
                .append(" <i>events</i> under the run.</p><ul>\n");
        item(
                legend,
                bar(TimelineSvg.LEADER),
                "<b>leadership</b>: this instance leads; the label (<code>leader, token 22</code>) gives the token it"
                        + " leads with, inside the bar or beside it when the bar is too short for it");
        item(
                legend,
                bar(TimelineSvg.LEASE),
                "<b>lease or claim</b>: a Redis <code>SET NX PX</code> lease, a claim on a batch, a slot or an"
                        + " intent, drawn for as long as it was valid; leases that overlap stack");
        item(
                legend,
                String.format(
                        Locale.ROOT,
                        "<rect class=\"work\" x=\"2\" y=\"7\" width=\"40\" height=\"6\" fill=\"%s\"/>",
                        TimelineSvg.WORK),
                "<b>work</b>: a tick, a billing run, a batch or a slot being processed; work of one instance that"
                        + " overlaps stacks, so overlapping ticks show as two strokes");
        item(
                legend,
                "<defs>" + TimelineSvg.hatchPattern("hatch-legend") + "</defs>"
                        + "<rect class=\"pause\" x=\"2\" y=\"1\" width=\"40\" height=\"18\" fill=\"url(#hatch-legend)\"/>",
                "<b>paused</b> (hatched, behind the lane): a GC pause, <code>kill -STOP</code>, a silenced connection"
                        + " or a relay stalled mid-delivery; the instance does nothing while it lasts");
        item(
                legend,
                EventMarks.shape(Timeline.Kind.INFO, 22, 10, ""),
                "<b>event</b>: leads, follows, wakes up, done; with a label (<code>c4</code>, <code>batch-0</code>,"
                        + " <code>03:02</code>) when it concerns a customer, a batch or a slot, written without a"
                        + " token: the broken runs' writes carry none");
        item(
                legend,
                EventMarks.shape(Timeline.Kind.WRITE_ACCEPTED, 22, 10, ""),
                "<b>write accepted</b>; under it its token, then what it concerns: <code>22 c1</code> is c1 charged"
                        + " with token 22, <code>22 fence</code> the resource fenced with token 22 before any work");
        item(
                legend,
                EventMarks.shape(Timeline.Kind.WRITE_REJECTED, 22, 10, ""),
                "<b>write rejected</b>: its token was below the highest the resource had seen"
                        + " (<code>22 rejected c4</code>)");
        item(
                legend,
                EventMarks.shape(Timeline.Kind.PROBLEM, 22, 10, ""),
                "<b>fault or failure</b>: a pause or crash begins, a duplicate lands, a lease is lost mid-work; in a"
                        + " green run it marks the fault the run was put through and survived");
        return legend.append("</ul></div>\n").toString();
    }

    private static String bar(String fill) {
        return String.format(Locale.ROOT, "<rect x=\"2\" y=\"2\" width=\"40\" height=\"16\" fill=\"%s\"/>", fill);
    }

    private static void item(StringBuilder legend, String swatch, String text) {
        legend.append("<li>")
                .append(SWATCH)
                .append(swatch)
                .append("</svg><span>")
                .append(text)
                .append("</span></li>\n");
    }
}
