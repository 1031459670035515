package dev.leasehold.examples.fencebench;

import java.util.Locale;

/**
 * A line of the results table, in the columns every {@code bench} table of docs/performance.md has: times per
 * transaction in microseconds, the ratio of medians on the fenced line (plain over fenced: 1 = no cost), and the goal.
 */
record Row(String benchmark, String variant, int n, String median, String p90, String p99, String ratio, String goal) {

    static final String HEADER = "| benchmark | variant | n | median | p90 | p99 | ratio of medians | goal |\n"
            + "|---|---|---:|---:|---:|---:|---:|---|";

    static Row of(String benchmark, String variant, Timings timings) {
        return new Row(
                benchmark,
                variant,
                timings.rounds(),
                micros(timings.median()),
                micros(timings.percentile(90)),
                micros(timings.percentile(99)),
                "",
                "");
    }

    Row withRatio(double ratio, String goal) {
        return new Row(benchmark, variant, n, median, p90, p99, String.format(Locale.ROOT, "%.2f", ratio), goal);
    }

    String markdown() {
        return String.join(" | ", "| " + benchmark, variant, Integer.toString(n), median, p90, p99, ratio, goal) + " |";
    }

    private static String micros(long nanos) {
        return String.format(Locale.ROOT, "%.1f µs", nanos / 1e3);
    }
}
