package dev.leasehold.scenarios.bench;

import dev.leasehold.scenarios.bench.LockSides.Cycle;
import dev.leasehold.scenarios.bench.LockSides.Side;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.curator.framework.CuratorFramework;

/**
 * {@code bench locks} (issue 45): {@code lock} + {@code unlock} per second, {@code FencedLockRegistry.jdbc} beside
 * Spring Integration's own {@code JdbcLockRegistry} (its {@code DefaultLockRepository}, its INT_LOCK table) on the same
 * PostgreSQL and pool, and {@code FencedMutex} beside a bare Curator {@code InterProcessMutex} on the same ZooKeeper
 * client, at 1 and 8 threads. Two meanings of "8 threads", both measured:
 * <ul>
 *   <li><b>distinct keys</b>: each thread locks a key of its own, so what is measured is the cost of one lock +
 *       unlock and how it scales; the goals are on these rows (at least 1.0x JdbcLockRegistry, at least 0.95x
 *       InterProcessMutex);</li>
 *   <li><b>one key</b>: the 8 threads contend on one lock object, so what is measured is how fast the lock passes
 *       from thread to thread; ratios are printed, without a goal.</li>
 * </ul>
 * The two sides alternate round by round (A B, B A, ...; 11 rounds on the database, 21 on ZooKeeper) after a warm-up
 * of both. Where the time goes: {@link #NOTE}.
 */
final class LocksBench {

    /** The report's closing note: what "threads" means here and where the time goes. */
    static final String NOTE = "locks: \"8 threads, distinct keys\" is 8 threads each locking a key of its own (the"
            + " per-operation cost, where the goals are); \"8 threads, one key\" is 8 threads contending on one lock"
            + " object (the handoff; no goal). Database (as PostgreSQL's log_statement=all shows):"
            + " FencedLockRegistry.jdbc sends one autocommit UPDATE per lock (LeaseLock.tryLock, returning the token)"
            + " and one per unlock, 2 round trips a cycle; JdbcLockRegistry 7.0 locks in a READ_COMMITTED transaction"
            + " (SHOW TRANSACTION ISOLATION LEVEL; BEGIN with an UPDATE that finds no row, as unlock deleted it; an"
            + " INSERT; a COMMIT) and unlocks in another (BEGIN with a DELETE; a COMMIT), 6 round trips a cycle. Both"
            + " commit twice a cycle, a WAL flush each with synchronous_commit=on, which bounds both. ZooKeeper:"
            + " FencedMutex sends Curator's own requests (its create keeps the Stat the answer carries anyway), so what"
            + " it adds is in this JVM: a Curator mutex and a hold record per hold, the token read from that Stat. On"
            + " one key, a bare InterProcessMutex shared by the threads wakes every waiting thread at each release (its"
            + " watcher calls notifyAll on the mutex's one LockInternals, and each waiter lists the children again);"
            + " FencedMutex makes a Curator mutex per hold, so only the next waiter wakes.";

    private static final int[] THREADS = {1, 8};

    private final boolean quick;

    LocksBench(boolean quick) {
        this.quick = quick;
    }

    /** The database rows: FencedLockRegistry.jdbc over JdbcLockRegistry, on {@code db} (PostgreSQL). */
    List<Row> jdbc(DatabaseBench.Db db, String prefix) throws Exception {
        List<AutoCloseable> closing = new ArrayList<>();
        try {
            List<Side> sides = LockSides.jdbc(db.pool(), prefix, closing);
            return measure(sides, db.label(), "JdbcLockRegistry", 1.0, quick ? 20 : 100, quick ? 1 : 11);
        } finally {
            closeAll(closing);
        }
    }

    /** The ZooKeeper rows: FencedMutex over InterProcessMutex, on {@code client}, under the fresh path {@code root}. */
    List<Row> zookeeper(CuratorFramework client, String root, String where) throws Exception {
        List<AutoCloseable> closing = new ArrayList<>();
        try {
            List<Side> sides = LockSides.zookeeper(client, root, closing);
            // a cycle takes milliseconds: more and shorter rounds, so that the load's swings fall on both sides alike
            return measure(sides, where, "InterProcessMutex", 0.95, quick ? 20 : 50, quick ? 1 : 21);
        } finally {
            closeAll(closing);
        }
    }

    /**
     * Rows for sides.get(1) (the peer) and sides.get(0) (ours, with ratio and goal) at 1 thread, 8 threads on distinct
     * keys and 8 threads on one key; {@code perThread} cycles per thread per round on distinct keys, that many in all
     * on one key (the threads take turns there, so more would only take longer). Many short rounds rather than a few
     * long ones: on a shared machine the load swings within a run (rounds of one side measured 300 to 1,900
     * lock+unlock/s at a load average of 27), and alternating many rounds spreads those swings over both sides.
     */
    private List<Row> measure(List<Side> sides, String where, String peer, double goal, int perThread, int rounds)
            throws Exception {
        List<List<Cycle>> distinct = new ArrayList<>();
        List<List<Cycle>> shared = new ArrayList<>();
        for (Side side : sides) {
            List<Cycle> own = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                own.add(side.cycles().cycle("bench-" + t));
            }
            distinct.add(own);
            Cycle one = side.cycles().cycle("bench-shared");
            shared.add(List.of(one, one, one, one, one, one, one, one));
        }
        for (int v = 0; v < sides.size(); v++) { // warm-up (JIT, the first INSERT or node of each key), not recorded
            cycles(distinct.get(v), Math.max(10, perThread / 4), 8);
            cycles(shared.get(v), Math.max(2, perThread / 32), 8);
        }
        List<Row> rows = new ArrayList<>();
        for (int threads : THREADS) {
            for (boolean oneKey : threads == 1 ? new boolean[] {false} : new boolean[] {false, true}) {
                List<List<Cycle>> cycles = oneKey ? shared : distinct;
                List<Samples> samples = List.of(new Samples(), new Samples());
                for (int round = 0; round < rounds; round++) {
                    for (int k = 0; k < sides.size(); k++) {
                        int v = (k + round) % sides.size(); // alternated, so that neither always runs first
                        samples.get(v)
                                .add(cycles(
                                        cycles.get(v), oneKey ? Math.max(1, perThread / threads) : perThread, threads));
                    }
                }
                String label = " (" + where + ", " + threads + " thread" + (threads > 1 ? "s" : "")
                        + (oneKey ? ", one key)" : ", distinct keys)");
                double ratio = rate(samples.get(0)) / rate(samples.get(1));
                rows.add(row(sides.get(1).name() + label, samples.get(1), "", ""));
                rows.add(row(
                        sides.get(0).name() + " over " + peer + label,
                        samples.get(0),
                        String.format("%.2f", ratio),
                        oneKey
                                ? "no goal: contention"
                                : ElectionBench.goal(ratio >= goal, String.format(">= %.2fx %s", goal, peer))));
            }
        }
        return rows;
    }

    /**
     * {@code perThread} lock + unlock cycles on each of {@code threads} threads, thread t running {@code cycles.get(t)}
     * (all threads released at once); nanoseconds per cycle over all threads (the inverse of their joint rate).
     */
    private static long cycles(List<Cycle> cycles, int perThread, int threads) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch ready = new CountDownLatch(threads);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Cycle cycle = cycles.get(t);
                done.add(pool.submit(() -> {
                    ready.countDown();
                    go.await();
                    for (int i = 0; i < perThread; i++) {
                        cycle.run();
                    }
                    return null;
                }));
            }
            ElectionBench.await(ready, "the bench's lock threads to start");
            long started = System.nanoTime();
            go.countDown();
            for (Future<?> f : done) {
                f.get();
            }
            return (System.nanoTime() - started) / ((long) perThread * threads);
        } finally {
            pool.shutdownNow();
        }
    }

    private static void closeAll(List<AutoCloseable> closing) {
        for (int i = closing.size() - 1; i >= 0; i--) {
            try {
                closing.get(i).close();
            } catch (Exception ignored) {
                // best effort
            }
        }
    }

    private static double rate(Samples nanosPerCycle) {
        return 1e9 / Math.max(1, nanosPerCycle.median());
    }

    private static Row row(String variant, Samples nanosPerCycle, String ratio, String goal) {
        return new Row(
                "locks",
                variant,
                nanosPerCycle.count(),
                perSecond(nanosPerCycle.median()),
                perSecond(nanosPerCycle.percentile(90)),
                perSecond(nanosPerCycle.percentile(99)),
                ratio,
                goal);
    }

    private static String perSecond(long nanosPerCycle) {
        return String.format("%.0f lock+unlock/s", 1e9 / Math.max(1, nanosPerCycle));
    }
}
