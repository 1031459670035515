package dev.leasehold.scenarios.report;

import java.util.Locale;

/**
 * How an event is drawn: its mark (a green dot for an accepted write, a red cross for a rejected one, an amber
 * triangle for a fault or failure, a small grey dot for anything else) and the label under it: a write's token,
 * then what the event concerns (a customer, a slot, a batch), e.g. {@code 22 c1}, {@code 22 rejected c4} or
 * {@code 22 fence}. The report's legend draws its swatches with these same marks.
 */
final class EventMarks {

    private EventMarks() {}

    /** The label under the event's mark; empty when there is nothing to say beyond the mark. */
    static String label(Timeline.Event event) {
        String token = event.token() == null ? "" : String.valueOf(event.token());
        return switch (event.kind()) {
            case WRITE_ACCEPTED -> join(token, event.label());
            case WRITE_REJECTED -> join(token + " rejected", event.label());
            case PROBLEM, INFO -> event.label() == null ? "" : event.label();
        };
    }

    /** The colour of the label's text (dark enough to read on white: 4.5:1 or more). */
    static String textColor(Timeline.Kind kind) {
        return switch (kind) {
            case WRITE_ACCEPTED -> TimelineSvg.ACCEPTED;
            case WRITE_REJECTED -> TimelineSvg.REJECTED;
            case PROBLEM -> TimelineSvg.PROBLEM_TEXT;
            case INFO -> TimelineSvg.INFO;
        };
    }

    /** The event's mark centred on (x, cy), with its full text as a tooltip. */
    static String mark(Timeline.Event event, double x, int cy) {
        String title = "<title>t=" + event.atMillis() + "ms " + HtmlReport.escape(event.text()) + "</title>";
        String token = event.token() == null ? "" : String.valueOf(event.token());
        return switch (event.kind()) {
            case WRITE_ACCEPTED -> String.format(
                    Locale.ROOT,
                    "<g class=\"write accepted\" data-token=\"%s\">%s</g>",
                    token,
                    shape(event.kind(), x, cy, title));
            case WRITE_REJECTED -> String.format(
                    Locale.ROOT,
                    "<g class=\"write rejected\" data-token=\"%s\">%s</g>",
                    token,
                    shape(event.kind(), x, cy, title));
            case PROBLEM -> "<g class=\"problem\">" + shape(event.kind(), x, cy, title) + "</g>";
            case INFO -> "<g class=\"info\">" + shape(event.kind(), x, cy, title) + "</g>";
        };
    }

    /** The shape alone (the legend's swatches use it with no tooltip). */
    static String shape(Timeline.Kind kind, double x, int cy, String title) {
        return switch (kind) {
            case WRITE_ACCEPTED -> String.format(
                    Locale.ROOT,
                    "<circle cx=\"%.1f\" cy=\"%d\" r=\"5\" fill=\"%s\">%s</circle>",
                    x,
                    cy,
                    TimelineSvg.ACCEPTED,
                    title);
            case WRITE_REJECTED -> String.format(
                    Locale.ROOT,
                    "<path d=\"M%.1f %d l10 10 m0 -10 l-10 10\" stroke=\"%s\" stroke-width=\"3\">%s</path>",
                    x - 5,
                    cy - 5,
                    TimelineSvg.REJECTED,
                    title);
            case PROBLEM -> String.format(
                    Locale.ROOT,
                    "<path d=\"M%.1f %d l6 11 l-12 0 z\" fill=\"%s\">%s</path>",
                    x,
                    cy - 6,
                    TimelineSvg.PROBLEM,
                    title);
            case INFO -> String.format(
                    Locale.ROOT,
                    "<circle cx=\"%.1f\" cy=\"%d\" r=\"3\" fill=\"%s\">%s</circle>",
                    x,
                    cy,
                    TimelineSvg.INFO,
                    title);
        };
    }

    private static String join(String first, String second) {
        return second == null ? first : first + " " + second;
    }
}
