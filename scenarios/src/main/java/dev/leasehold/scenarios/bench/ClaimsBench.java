package dev.leasehold.scenarios.bench;

import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.claims.BatchClaim;
import dev.leasehold.store.claims.BatchClaims;
import dev.leasehold.store.claims.FinishOutcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * claims (issue 16), on PostgreSQL, side by side in one run at 1, 4 and 8 workers on one pool, each round running the
 * four variants in a rotated order:
 * <ul>
 *   <li>the database's single-row commit rate: each worker runs autocommit {@code UPDATE}s of its own row: the
 *       physical limit of anything that commits per item;</li>
 *   <li>Leasehold one at a time: {@code claimNext} + {@code finish}, two commits per batch;</li>
 *   <li>Leasehold {@code claimUpTo} + {@code finishAll}, {@value #BATCH} at a time: two commits per claimed set;</li>
 *   <li>db-scheduler one-time tasks, no-op, its defaults ({@link DbSchedulerRun}).</li>
 * </ul>
 * Every item is counted: each batch finished (and each db-scheduler task run) exactly once, or the bench fails. The
 * pool's sessions run with {@code synchronous_commit = on} (production durability: a commit waits for its WAL flush)
 * whatever the server's default, which is restored afterwards. Not thread-safe: one run at a time.
 */
final class ClaimsBench {

    /** How many batches one {@code claimUpTo} takes at most. */
    static final int BATCH = 50;

    private static final Duration LEASE = Duration.ofMinutes(5);
    private static final int[] WORKERS = {1, 4, 8};

    private final boolean quick;
    private final String prefix;

    ClaimsBench(boolean quick, String prefix) {
        this.quick = quick;
        this.prefix = prefix;
    }

    /** One unit of measured work: {@code items} items by {@code workers} workers; returns nanoseconds per item. */
    private interface Variant {
        long run(int items, int workers) throws Exception;
    }

    List<Row> run(DatabaseBench.Db db) throws Exception {
        String durability = durable(db, "on");
        try {
            return measure(db);
        } finally {
            durable(db, durability);
        }
    }

    private List<Row> measure(DatabaseBench.Db db) throws Exception {
        StoreConfig config = StoreConfig.defaults().withTablePrefix(prefix);
        FencedSchema.install(db.pool(), config);
        BatchClaims claims = new BatchClaims(db.pool(), config);
        String counters = prefix + "commit_rate";
        try (Connection c = db.pool().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + counters + " (id INT PRIMARY KEY, v BIGINT NOT NULL)");
            s.execute("DELETE FROM " + counters);
            s.execute("INSERT INTO " + counters + " (id, v) SELECT x, 0 FROM generate_series(0, 15) AS g(x)");
        }
        DbSchedulerRun dbScheduler = new DbSchedulerRun(db.pool(), prefix);
        // the durability in force, unless the database's label says it already
        String settings = db.label().contains("fsync=") ? "" : ", " + settings(db);
        List<String> names = List.of(
                "autocommit UPDATE of one row" + settings,
                "Leasehold claimNext + finish",
                "Leasehold claimUpTo(" + BATCH + ") + finishAll",
                "db-scheduler one-time tasks, default polling");
        List<Variant> variants = List.of(
                (items, workers) -> commits(db, counters, items, workers),
                (items, workers) -> drain(db, claims, items, workers, false),
                (items, workers) -> drain(db, claims, items, workers, true),
                dbScheduler::run);
        // many short rounds rather than a few long ones: the commit rate moves with the disk's flush time, which
        // other processes share; rotating the variants round by round spreads such spells over all of them
        int items = quick ? 100 : 2_500;
        int rounds = quick ? 1 : 6;
        for (Variant variant : variants) {
            variant.run(quick ? 50 : 500, 2); // warm-up (JIT, caches, the scheduler's classes), not recorded
        }
        List<Row> rows = new ArrayList<>();
        for (int workers : WORKERS) {
            List<Samples> samples = List.of(new Samples(), new Samples(), new Samples(), new Samples());
            for (int round = 0; round < rounds; round++) {
                for (int k = 0; k < variants.size(); k++) {
                    int v = (k + round) % variants.size(); // rotated, so that no variant always runs first
                    samples.get(v).add(variants.get(v).run(items, workers));
                }
            }
            String where = " (" + db.label() + ", " + workers + " worker" + (workers > 1 ? "s" : "") + ", " + items
                    + " items)";
            double limit = rate(samples.get(0));
            double dbs = rate(samples.get(3));
            rows.add(row(names.get(0) + where, samples.get(0), "", ""));
            rows.add(row(names.get(1) + where, samples.get(1), fraction(rate(samples.get(1)) / limit), ""));
            double ours = rate(samples.get(2));
            rows.add(row(names.get(2) + where, samples.get(2), fraction(ours / limit), ""));
            rows.add(row(names.get(3) + where, samples.get(3), fraction(dbs / limit), ""));
            rows.add(new Row(
                    "claims",
                    "Leasehold claimUpTo(" + BATCH + ") over db-scheduler" + where,
                    rounds,
                    "",
                    "",
                    "",
                    String.format("%.2f", ours / dbs),
                    workers >= 4 ? ElectionBench.goal(ours / dbs >= 1.0, ">= 1.0x db-scheduler") : ""));
        }
        return rows;
    }

    /** {@code items} autocommit single-row UPDATEs, spread over the workers, each worker on its own row. */
    private static long commits(DatabaseBench.Db db, String table, int items, int workers) throws Exception {
        return parallel(items, workers, (worker, share) -> {
            try (Connection c = db.pool().getConnection();
                    PreparedStatement p = c.prepareStatement("UPDATE " + table + " SET v = v + 1 WHERE id = ?")) {
                for (int i = 0; i < share; i++) {
                    p.setInt(1, worker);
                    if (p.executeUpdate() != 1) {
                        throw new IllegalStateException("no row " + worker + " in " + table);
                    }
                }
            }
            return share;
        });
    }

    /** Enqueues {@code items} batches (not timed); the workers claim and finish them all, each exactly once. */
    private long drain(DatabaseBench.Db db, BatchClaims claims, int items, int workers, boolean many) throws Exception {
        String table = prefix + "batches";
        try (Connection c = db.pool().getConnection();
                Statement s = c.createStatement()) {
            s.execute("DELETE FROM " + table);
            s.execute("INSERT INTO " + table + " (id, payload, status, fence, attempts, enqueued_at) SELECT 'b-' || x,"
                    + " 'p', 'pending', 0, 0, now() FROM generate_series(1, " + items + ") AS g(x)");
        }
        Map<String, AtomicInteger> finished = new ConcurrentHashMap<>();
        long nanos = parallel(items, workers, (worker, share) -> {
            String owner = "worker-" + worker;
            int done = 0;
            if (many) {
                List<BatchClaim> claimed;
                while (!(claimed = claims.claimUpTo(owner, LEASE, BATCH)).isEmpty()) {
                    FinishOutcome outcome = claims.finishAll(claimed, "ok");
                    for (BatchClaim claim : outcome.finished()) {
                        finished.computeIfAbsent(claim.batchId(), k -> new AtomicInteger())
                                .incrementAndGet();
                    }
                    done += outcome.finished().size();
                }
            } else {
                Optional<BatchClaim> claim;
                while ((claim = claims.claimNext(owner, LEASE)).isPresent()) {
                    if (claims.finish(claim.get(), "ok")) {
                        finished.computeIfAbsent(claim.get().batchId(), k -> new AtomicInteger())
                                .incrementAndGet();
                        done++;
                    }
                }
            }
            return done;
        });
        if (finished.size() != items || finished.values().stream().anyMatch(n -> n.get() != 1)) {
            throw new IllegalStateException("Leasehold: " + finished.size() + " of " + items + " batches finished, "
                    + finished.values().stream().filter(n -> n.get() != 1).count() + " of them not exactly once");
        }
        return nanos;
    }

    private interface Worker {
        /** Works on {@code share} items (a hint: drains take what they find); returns how many it did. */
        int work(int worker, int share) throws Exception;
    }

    /** Starts the workers together; returns nanoseconds per item of the whole run. */
    private static long parallel(int items, int workers, Worker body) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Integer>> runs = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                int worker = w;
                int share = items / workers + (w < items % workers ? 1 : 0);
                runs.add(pool.submit(() -> {
                    go.await();
                    return body.work(worker, share);
                }));
            }
            long start = System.nanoTime();
            go.countDown();
            int done = 0;
            for (Future<Integer> run : runs) {
                done += run.get(10, TimeUnit.MINUTES);
            }
            long elapsed = System.nanoTime() - start;
            if (done != items) {
                throw new IllegalStateException("did " + done + " of " + items + " items");
            }
            return elapsed / items;
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Sets {@code synchronous_commit} on every session of the pool (it holds each connection once, then gives them all
     * back); returns the value it had.
     */
    private static String durable(DatabaseBench.Db db, String value) throws SQLException {
        List<Connection> all = new ArrayList<>();
        String before = null;
        try {
            for (int i = 0; i < db.pool().size(); i++) {
                Connection c = db.pool().getConnection();
                all.add(c);
                try (Statement s = c.createStatement()) {
                    if (before == null) {
                        before = show(c, "synchronous_commit");
                    }
                    s.execute("SET synchronous_commit = " + value);
                }
            }
        } finally {
            for (Connection c : all) {
                c.close();
            }
        }
        return before;
    }

    /** What bounds the commit rate: the durability settings in force, for the row's label. */
    private static String settings(DatabaseBench.Db db) throws SQLException {
        try (Connection c = db.pool().getConnection()) {
            return "synchronous_commit=" + show(c, "synchronous_commit") + ", fsync=" + show(c, "fsync");
        }
    }

    private static String show(Connection c, String setting) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW " + setting)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static double rate(Samples nanosPerItem) {
        return 1e9 / Math.max(1, nanosPerItem.median());
    }

    private static String fraction(double value) {
        return String.format("%.2f", value);
    }

    private static Row row(String variant, Samples nanosPerItem, String ratio, String goal) {
        return new Row(
                "claims",
                variant,
                nanosPerItem.count(),
                perSecond(nanosPerItem.median()),
                perSecond(nanosPerItem.percentile(90)),
                perSecond(nanosPerItem.percentile(99)),
                ratio,
                goal);
    }

    private static String perSecond(long nanosPerItem) {
        return String.format("%.0f items/s", 1e9 / Math.max(1, nanosPerItem));
    }
}
