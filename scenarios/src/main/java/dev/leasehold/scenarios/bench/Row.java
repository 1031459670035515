package dev.leasehold.scenarios.bench;

import java.util.function.LongFunction;

/**
 * One line of the results table. {@code value} renders a percentile of the samples (a duration, a rate, a count);
 * {@code ratio} and {@code goal} are filled on the line that is compared with a baseline.
 */
record Row(String benchmark, String variant, int n, String median, String p90, String p99, String ratio, String goal) {

    static String header() {
        return "| benchmark | variant | n | median | p90 | p99 | ratio of medians | goal |\n"
                + "|---|---|---:|---:|---:|---:|---:|---|";
    }

    String markdown() {
        return "| " + benchmark + " | " + variant + " | " + n + " | " + median + " | " + p90 + " | " + p99 + " | "
                + ratio + " | " + goal + " |";
    }

    static String millis(long nanos) {
        return String.format("%.2f ms", nanos / 1e6);
    }

    static String micros(long nanos) {
        return String.format("%.1f µs", nanos / 1e3);
    }

    /** A duration row. */
    static Row durations(String benchmark, String variant, Samples samples, boolean micros) {
        LongFunction<String> f = micros ? Row::micros : Row::millis;
        return new Row(
                benchmark,
                variant,
                samples.count(),
                f.apply(samples.median()),
                f.apply(samples.percentile(90)),
                f.apply(samples.percentile(99)),
                "",
                "");
    }

    Row compared(String ratio, String goal) {
        return new Row(benchmark, variant, n, median, p90, p99, ratio, goal);
    }
}
