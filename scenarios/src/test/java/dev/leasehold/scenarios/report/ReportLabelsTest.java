package dev.leasehold.scenarios.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.scenarios.RunResult;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Issue 29, item 1: the report's labels as a new user saw them, rebuilt on a settable clock, must be legible: a
 * label that does not fit its bar stands beside it, no pause hatch is painted over a label, overlapping leases'
 * labels do not overlap, every mark's label is drawn, and the summary shows every verdict.
 */
class ReportLabelsTest {

    private final AtomicLong nanos = new AtomicLong();
    private final PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());

    private Timeline timeline(String... lanes) {
        return new Timeline("t", quiet, List.of(lanes), nanos::get);
    }

    private void at(long millis) {
        nanos.set(millis * 1_000_000);
    }

    private static RunResult held(Timeline timeline, String... verdicts) {
        timeline.finish();
        return new RunResult("s", "with Leasehold", false, timeline, List.of(verdicts), true, "held");
    }

    /** "leader, token 84" on a bar much narrower than its text; it ran past the bar onto white. */
    @Test
    void aLabelTooLongForItsBarStandsBesideIt() {
        Timeline t = timeline("A", "B");
        t.span("A", Timeline.SpanKind.LEADERSHIP, "leader, token 83", 100, 3300);
        t.span("B", Timeline.SpanKind.LEADERSHIP, "leader, token 84", 3300, 3350);
        at(3400);
        String html = HtmlReport.render(List.of(held(t)));

        assertThat(ReportLayout.problems(html)).isEmpty();
        assertThat(ReportLayout.texts(html)).contains("leader, token 83", "leader, token 84");
    }

    /** The pause hatch was painted over "leader, token 83" and over relay-2's "claim, lease 400 ms". */
    @Test
    void noPauseHatchIsPaintedOverALabel() {
        Timeline t = timeline("A", "relay-2");
        t.span("A", Timeline.SpanKind.LEADERSHIP, "leader, token 83", 300, 2000);
        t.span("A", Timeline.SpanKind.PAUSE, "paused: process silent", 330, 2700);
        t.span("relay-2", Timeline.SpanKind.LEASE, "claim, lease 400 ms", 1000, 1400);
        t.span("relay-2", Timeline.SpanKind.PAUSE, "stalled between send and record", 1010, 1330);
        at(2800);
        String html = HtmlReport.render(List.of(held(t)));

        assertThat(ReportLayout.problems(html)).isEmpty();
        assertThat(ReportLayout.texts(html)).contains("leader, token 83", "claim, lease 400 ms");
    }

    /** pod-B's five "lease (SET NX PX 1000)" labels overlapped in duplicate-batch. */
    @Test
    void overlappingLeasesKeepTheirLabelsApart() {
        Timeline t = timeline("pod-A", "pod-B");
        for (long from : new long[] {1600, 2270, 2730, 3120, 3400}) {
            t.span("pod-B", Timeline.SpanKind.LEASE, "lease (SET NX PX 1000)", from, from + 1000);
        }
        at(3500);
        String html = HtmlReport.render(List.of(held(t)));

        assertThat(ReportLayout.problems(html)).isEmpty();
        assertThat(ReportLayout.texts(html).stream().filter("lease (SET NX PX 1000)"::equals))
                .hasSize(10); // five in each of the two widths
    }

    /** Marks close together: each label is drawn, none over another (three rows used to drop the rest). */
    @Test
    void everyMarkKeepsItsLabel() {
        Timeline t = timeline("A");
        for (int i = 1; i <= 6; i++) {
            at(700 + i * 3);
            t.accepted("A", "charged c" + i, 22, "c" + i);
        }
        at(2000);
        String html = HtmlReport.render(List.of(held(t)));

        assertThat(ReportLayout.problems(html)).isEmpty();
        assertThat(ReportLayout.texts(html)).contains("22 c1", "22 c2", "22 c3", "22 c4", "22 c5", "22 c6");
    }

    /** minute-slots' table row dropped "missing slots: 03:02, 03:05, 03:06", its second verdict. */
    @Test
    void theSummaryShowsEveryVerdict() {
        Timeline t = timeline("replica-0");
        at(10);
        RunResult run = new RunResult(
                "minute-slots",
                "as it happened",
                true,
                t,
                List.of("duplicate slots: 03:03", "missing slots: 03:02, 03:05, 03:06"),
                true,
                "reproduced");
        t.finish();
        String html = HtmlReport.render(List.of(run));
        String summary = html.substring(html.indexOf("<table class=\"summary\">"), html.indexOf("</table>"));

        assertThat(summary).contains("duplicate slots: 03:03").contains("missing slots: 03:02, 03:05, 03:06");
    }

    /** The legend had a swatch for leadership only; the event dot, the triangle and the bare tokens were unexplained. */
    @Test
    void theLegendHasASwatchForEveryMark() {
        Timeline t = timeline("A");
        at(5);
        String html = HtmlReport.render(List.of(held(t)));
        int start = html.indexOf("<div class=\"legend\">");
        String legend = html.substring(start, html.indexOf("</ul></div>", start));

        for (String mark : new String[] {
            "leadership",
            "lease or claim",
            "work",
            "paused",
            "event",
            "write accepted",
            "write rejected",
            "fault or failure"
        }) {
            assertThat(legend).as(mark).containsPattern("<li><svg[^>]*>.+</svg><span><b>" + mark + "</b>");
        }
        assertThat(legend).contains("<code>22 c1</code>", "<code>22 fence</code>", "<code>c4</code>");
    }
}
