package dev.leasehold.scenarios.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Where one lane's bars, work strokes and labels go, so that no label overlaps another or runs out of its bar.
 *
 * <p>A bar's label goes inside the bar when it fits, else beside it: after its end, or before its start when the
 * picture ends first. A bar and its label take one horizontal footprint, and footprints that overlap go to separate
 * tracks (so overlapping leases stack instead of covering each other). Work strokes get tracks the same way. A mark's
 * label goes under it, in the first row where it clears the label before it; rows are added as needed, none dropped.
 */
final class LaneLayout {

    static final double BAR_FONT = 11;
    static final double LABEL_FONT = 10;
    static final double GAP = 4;
    private static final double PAD = 4;

    /** Where a bar's label is drawn. */
    enum Place {
        INSIDE,
        RIGHT,
        LEFT
    }

    /** A bar placed: its track, its label's place and start (text-anchor start), its label's width. */
    record Bar(Timeline.Span span, double x, double width, int track, Place place, double labelX, double labelWidth) {}

    /** A work stroke placed in its track. */
    record Stroke(Timeline.Span span, double x, double width, int track) {}

    /** A mark's label: its text, where it starts, its row under the marks. */
    record Label(Timeline.Event event, String text, double x, int row) {}

    private final List<Bar> bars = new ArrayList<>();
    private final List<Stroke> strokes = new ArrayList<>();
    private final List<Label> labels = new ArrayList<>();
    private int barTracks;
    private int workTracks;
    private int labelRows;

    /** Positions are {@code x(ms)}; labels stay within [left, right]. */
    interface Scale {
        double x(long millis);
    }

    /** Lays out the lane's bars (leadership, lease), strokes (work) and labels (events with text to show). */
    LaneLayout(
            List<Timeline.Span> spans,
            List<Timeline.Event> events,
            List<String> eventLabels,
            Scale scale,
            long end,
            double left,
            double right) {
        List<double[]> barTracksFree = new ArrayList<>();
        List<Bar> unplaced = new ArrayList<>();
        for (Timeline.Span span : spans) {
            if (span.kind() != Timeline.SpanKind.LEADERSHIP && span.kind() != Timeline.SpanKind.LEASE) {
                continue;
            }
            double x = scale.x(span.fromMillis());
            double w = Math.max(2, scale.x(Math.min(span.toMillis(), end)) - x);
            double lw = TextWidth.of(span.label(), BAR_FONT, false);
            Place place;
            double labelX;
            if (lw + 2 * PAD <= w) {
                place = Place.INSIDE;
                labelX = x + PAD;
            } else if (x + w + GAP + lw <= right || x - GAP - lw < left) {
                place = Place.RIGHT;
                labelX = x + w + GAP;
            } else {
                place = Place.LEFT;
                labelX = x - GAP - lw;
            }
            unplaced.add(new Bar(span, x, w, -1, place, labelX, lw));
        }
        unplaced.sort(Comparator.comparingDouble(LaneLayout::footprintStart));
        for (Bar bar : unplaced) {
            int track = track(barTracksFree, footprintStart(bar), footprintEnd(bar) + GAP);
            bars.add(new Bar(bar.span(), bar.x(), bar.width(), track, bar.place(), bar.labelX(), bar.labelWidth()));
        }
        barTracks = barTracksFree.size();

        List<double[]> workFree = new ArrayList<>();
        List<Timeline.Span> work = new ArrayList<>();
        for (Timeline.Span span : spans) {
            if (span.kind() == Timeline.SpanKind.WORK) {
                work.add(span);
            }
        }
        work.sort(Comparator.comparingLong(Timeline.Span::fromMillis));
        for (Timeline.Span span : work) {
            double x = scale.x(span.fromMillis());
            double w = Math.max(2, scale.x(Math.min(span.toMillis(), end)) - x);
            strokes.add(new Stroke(span, x, w, track(workFree, x, x + w + 2)));
        }
        workTracks = workFree.size();

        List<double[]> rowsFree = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            String text = eventLabels.get(i);
            if (text.isEmpty()) {
                continue;
            }
            double lw = TextWidth.of(text, LABEL_FONT, false);
            double x = Math.max(left, Math.min(scale.x(events.get(i).atMillis()) - 4, right - lw));
            labels.add(new Label(events.get(i), text, x, track(rowsFree, x, x + lw + 6)));
        }
        labelRows = rowsFree.size();
    }

    /** The first track free from {@code from} on, taken up to {@code to}; a new track when none is. */
    private static int track(List<double[]> freeFrom, double from, double to) {
        for (int t = 0; t < freeFrom.size(); t++) {
            if (from >= freeFrom.get(t)[0]) {
                freeFrom.get(t)[0] = to;
                return t;
            }
        }
        freeFrom.add(new double[] {to});
        return freeFrom.size() - 1;
    }

    private static double footprintStart(Bar bar) {
        return bar.place() == Place.LEFT ? bar.labelX() : bar.x();
    }

    private static double footprintEnd(Bar bar) {
        return bar.place() == Place.RIGHT ? bar.labelX() + bar.labelWidth() : bar.x() + bar.width();
    }

    List<Bar> bars() {
        return bars;
    }

    List<Stroke> strokes() {
        return strokes;
    }

    List<Label> labels() {
        return labels;
    }

    int barTracks() {
        return barTracks;
    }

    int workTracks() {
        return workTracks;
    }

    int labelRows() {
        return labelRows;
    }
}
