package dev.leasehold.examples.fencebench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One cell of the bench: a kind of write at a number of threads, plain and a variant of it ({@link #FENCED}, or a
 * reference that shows where the time goes) measured side by side. The two sides alternate round by round (plain then
 * the variant, the variant then plain, ...), first for the warm-up, whose rounds are thrown away, then for
 * {@link BenchOptions#ROUNDS} measured rounds each. In a round every thread runs transactions back to back until the
 * round's time is up (at least one each); the round's sample is its wall time over the transactions completed.
 *
 * @param kind     what is written ("JPA save", "JdbcTemplate insert")
 * @param variant  what the other side is: {@link #FENCED}, or a reference
 * @param threads  how many threads write at once, all on the one resource
 * @param plain    the plain side's measured rounds
 * @param other    the other side's measured rounds
 * @param plainAll the plain side's transactions, warm-up included
 * @param otherAll the other side's transactions, warm-up included
 */
record Cell(String kind, String variant, int threads, Timings plain, Timings other, long plainAll, long otherAll) {

    /** The variant the goal is about: the same method, {@code @Fenced}. */
    static final String FENCED = "@Fenced";

    /** One transaction of a side, on bench thread {@code thread}. */
    @FunctionalInterface
    interface Transaction {
        void run(int thread);
    }

    /** Plain over the other side, of the medians: the other side's share of the plain side's throughput. */
    double ratio() {
        return plain.median() / (double) other.median();
    }

    /** Whether the other side is the {@code @Fenced} method. */
    boolean fenced() {
        return variant.equals(FENCED);
    }

    /** Measures a cell. */
    static Cell measure(
            String kind, String variant, int threads, BenchOptions options, Transaction plain, Transaction other)
            throws InterruptedException {
        long slice = (long) (options.seconds() * 1e9 / BenchOptions.ROUNDS);
        int warmupRounds = (int) Math.ceil(options.warmup() * 1e9 / slice);
        Timings plainTimings = new Timings();
        Timings otherTimings = new Timings();
        long plainAll = 0;
        long otherAll = 0;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int i = 0; i < warmupRounds + BenchOptions.ROUNDS; i++) {
                boolean measured = i >= warmupRounds;
                // A B, B A, ...: neither side always runs first
                if (i % 2 == 0) {
                    plainAll += round(pool, threads, slice, plain, measured ? plainTimings : null);
                    otherAll += round(pool, threads, slice, other, measured ? otherTimings : null);
                } else {
                    otherAll += round(pool, threads, slice, other, measured ? otherTimings : null);
                    plainAll += round(pool, threads, slice, plain, measured ? plainTimings : null);
                }
            }
        } finally {
            pool.shutdownNow();
        }
        return new Cell(kind, variant, threads, plainTimings, otherTimings, plainAll, otherAll);
    }

    /** One round of {@code transaction}; its sample into {@code into} unless null (warm-up); returns its count. */
    private static long round(ExecutorService pool, int threads, long slice, Transaction transaction, Timings into)
            throws InterruptedException {
        CountDownLatch go = new CountDownLatch(1);
        long[] deadline = new long[1];
        List<Future<Long>> runs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            runs.add(pool.submit(() -> {
                go.await(); // the deadline was written before the latch opened: visible here
                long count = 0;
                do {
                    transaction.run(thread);
                    count++;
                } while (System.nanoTime() < deadline[0]);
                return count;
            }));
        }
        long start = System.nanoTime();
        deadline[0] = start + slice;
        go.countDown();
        long count = 0;
        for (Future<Long> run : runs) {
            try {
                count += run.get(5, TimeUnit.MINUTES);
            } catch (ExecutionException e) {
                throw new IllegalStateException("a bench transaction failed: " + e.getCause(), e.getCause());
            } catch (TimeoutException e) {
                throw new IllegalStateException("a bench round did not end within 5 minutes", e);
            }
        }
        long wall = System.nanoTime() - start;
        if (into != null) {
            into.add(wall, count);
        }
        return count;
    }
}
