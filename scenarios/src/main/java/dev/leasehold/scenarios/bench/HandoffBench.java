package dev.leasehold.scenarios.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * handoff: close the leader (or end its work) and time until the next participant is told it leads; the recipe and
 * plain Curator interleaved round by round on the same ensemble ({@link LatchPair}, {@link SelectorPair}).
 *
 * <p>Thread-safety: used by the bench's one thread.
 */
final class HandoffBench {

    /** A pair of participants on one election; a handoff closes the leader (or ends its work) and times the next. */
    interface Pair {
        long handoff() throws Exception;
    }

    /** The latch's grant costs no request beyond Curator's; the selector's, one read of its own node. */
    private static final double LATCH_GOAL = 1.15;

    private static final double SELECTOR_GOAL = 1.30;

    private final ElectionBench bench;

    HandoffBench(ElectionBench bench) {
        this.bench = bench;
    }

    List<Row> run() throws Exception {
        int rounds = bench.quick ? 20 : 200;
        int warmup = bench.quick ? 3 : 20;
        List<Row> rows = new ArrayList<>();
        rows.addAll(sideBySide(
                "handoff",
                "LeaderLatch",
                "FencedLeaderLatch",
                new LatchPair(bench, false),
                new LatchPair(bench, true),
                warmup,
                rounds,
                LATCH_GOAL));
        rows.addAll(sideBySide(
                "handoff",
                "LeaderSelector",
                "FencedLeaderSelector",
                new SelectorPair(bench, false),
                new SelectorPair(bench, true),
                warmup,
                rounds,
                SELECTOR_GOAL));
        // The fenced latch tells its listeners on its own thread, never on ZooKeeper's: one thread hand-off that the
        // plain latch above skips. The same hand-off in plain Curator, side by side, shows what that costs.
        rows.addAll(sideBySide(
                "handoff",
                "LeaderLatch, listener on an executor",
                "FencedLeaderLatch (vs listener on an executor)",
                new LatchPair(bench, false, true),
                new LatchPair(bench, true),
                warmup,
                rounds,
                LATCH_GOAL));
        return rows;
    }

    private static List<Row> sideBySide(
            String benchmark,
            String baselineName,
            String fencedName,
            Pair baseline,
            Pair fenced,
            int warmup,
            int rounds,
            double goal)
            throws Exception {
        Samples plain = new Samples();
        Samples ours = new Samples();
        for (int i = 0; i < warmup + rounds; i++) {
            boolean plainFirst = i % 2 == 0; // A B, B A, ...: neither side always runs on a warmer machine
            long a = plainFirst ? baseline.handoff() : 0;
            long b = fenced.handoff();
            if (!plainFirst) {
                a = baseline.handoff();
            }
            if (i >= warmup) {
                plain.add(a);
                ours.add(b);
            }
        }
        double ratio = ours.median() / (double) plain.median();
        return List.of(
                Row.durations(benchmark, baselineName, plain, false),
                Row.durations(benchmark, fencedName, ours, false)
                        .compared(
                                String.format("%.2f", ratio),
                                ElectionBench.goal(ratio <= goal, String.format("<= %.2f", goal))));
    }
}
