package dev.leasehold.scenarios.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Measured durations (nanoseconds) of one variant; median and tail percentiles by nearest rank. */
final class Samples {

    private final List<Long> nanos = new ArrayList<>();

    synchronized void add(long value) {
        nanos.add(value);
    }

    synchronized int count() {
        return nanos.size();
    }

    synchronized long percentile(double p) {
        if (nanos.isEmpty()) {
            return 0;
        }
        List<Long> sorted = new ArrayList<>(nanos);
        Collections.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    long median() {
        return percentile(50);
    }
}
