package dev.leasehold.examples.fencebench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One side's measured rounds of a cell: the time per transaction of each round (its wall time over the transactions
 * all its threads completed, so the inverse of its throughput), and how many transactions were measured.
 */
final class Timings {

    private final List<Long> perTransaction = new ArrayList<>();
    private long transactions;

    void add(long wallNanos, long count) {
        perTransaction.add(wallNanos / count);
        transactions += count;
    }

    int rounds() {
        return perTransaction.size();
    }

    long transactions() {
        return transactions;
    }

    /** The {@code p}th percentile by nearest rank, in nanoseconds. */
    long percentile(double p) {
        List<Long> sorted = new ArrayList<>(perTransaction);
        Collections.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    long median() {
        return percentile(50);
    }
}
