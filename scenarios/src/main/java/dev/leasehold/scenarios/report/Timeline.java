package dev.leasehold.scenarios.report;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * What happened in one run, with times relative to its start: events (printed as they happen, in the order they
 * happen) and spans (leadership, leases, work, pauses) for the picture. Thread-safe.
 */
public final class Timeline {

    /** What an event was, for the picture. */
    public enum Kind {
        INFO,
        WRITE_ACCEPTED,
        WRITE_REJECTED,
        PROBLEM
    }

    /** What a span was, for the picture. */
    public enum SpanKind {
        LEADERSHIP,
        LEASE,
        WORK,
        PAUSE
    }

    /**
     * One event. {@code label} is what the picture writes under the event's mark (e.g. the customer charged or the
     * slot run), or null; the token of a write is always written.
     */
    public record Event(long atMillis, String lane, Kind kind, String text, Long token, String label) {}

    public record Span(String lane, SpanKind kind, String label, long fromMillis, long toMillis) {}

    private final String title;
    private final PrintStream out;
    private final LongSupplier nanoClock;
    private final long startNanos;
    private final List<String> lanes = new ArrayList<>();
    private final List<Event> events = new ArrayList<>();
    private final List<Span> spans = new ArrayList<>();
    /** Spans as begun (with toMillis -1); the handle is the index. */
    private final List<Span> begun = new ArrayList<>();

    private final Set<Integer> ended = new HashSet<>();
    private long endMillis = -1;

    public Timeline(String title, PrintStream out, List<String> lanes) {
        this(title, out, lanes, System::nanoTime);
    }

    /** A timeline on a given monotonic clock (nanoseconds), e.g. a test's settable one. */
    Timeline(String title, PrintStream out, List<String> lanes, LongSupplier nanoClock) {
        this.title = title;
        this.out = out;
        this.lanes.addAll(lanes);
        this.nanoClock = nanoClock;
        this.startNanos = nanoClock.getAsLong();
    }

    public String title() {
        return title;
    }

    public synchronized long now() {
        return (nanoClock.getAsLong() - startNanos) / 1_000_000;
    }

    public void info(String lane, String text) {
        event(lane, Kind.INFO, text, null, null);
    }

    /** An event whose mark is labelled in the picture, e.g. with the customer it charged. */
    public void info(String lane, String text, String label) {
        event(lane, Kind.INFO, text, null, label);
    }

    public void problem(String lane, String text) {
        event(lane, Kind.PROBLEM, text, null, null);
    }

    public void problem(String lane, String text, String label) {
        event(lane, Kind.PROBLEM, text, null, label);
    }

    public void accepted(String lane, String text, long token) {
        event(lane, Kind.WRITE_ACCEPTED, text, token, null);
    }

    public void accepted(String lane, String text, long token, String label) {
        event(lane, Kind.WRITE_ACCEPTED, text, token, label);
    }

    public void rejected(String lane, String text, long token) {
        event(lane, Kind.WRITE_REJECTED, text, token, null);
    }

    public void rejected(String lane, String text, long token, String label) {
        event(lane, Kind.WRITE_REJECTED, text, token, label);
    }

    public synchronized void event(String lane, Kind kind, String text, Long token, String label) {
        if (endMillis >= 0) {
            return; // the run is over: what its participants do while being closed is not part of the story
        }
        long at = now();
        addLane(lane);
        events.add(new Event(at, lane, kind, text, token, label));
        String marker =
                switch (kind) {
                    case WRITE_REJECTED -> " [REJECTED]";
                    case PROBLEM -> " [!]";
                    default -> "";
                };
        out.printf("  t=%5dms %-10s %s%s%n", at, lane, text, marker);
    }

    /** Opens a span; close it with {@link #end(int)}. Returns its handle. */
    public synchronized int begin(String lane, SpanKind kind, String label) {
        addLane(lane);
        begun.add(new Span(lane, kind, label, now(), -1));
        return begun.size() - 1;
    }

    /** Ends a span; ending it twice changes nothing. */
    public synchronized void end(int handle) {
        if (ended.add(handle)) {
            Span open = begun.get(handle);
            spans.add(new Span(open.lane(), open.kind(), open.label(), open.fromMillis(), now()));
        }
    }

    /** Adds a span whose both ends are known (e.g. a lease that expires by itself). */
    public synchronized void span(String lane, SpanKind kind, String label, long fromMillis, long toMillis) {
        addLane(lane);
        spans.add(new Span(lane, kind, label, fromMillis, toMillis));
    }

    /** Closes the run: spans still open end now. */
    public synchronized void finish() {
        if (endMillis >= 0) {
            return;
        }
        for (int i = 0; i < begun.size(); i++) {
            end(i);
        }
        endMillis = now();
    }

    public synchronized List<String> lanes() {
        return List.copyOf(lanes);
    }

    public synchronized List<Event> events() {
        return List.copyOf(events);
    }

    public synchronized List<Span> spans() {
        return List.copyOf(spans);
    }

    public synchronized long endMillis() {
        return endMillis < 0 ? now() : endMillis;
    }

    private void addLane(String lane) {
        if (!lanes.contains(lane)) {
            lanes.add(lane);
        }
    }
}
