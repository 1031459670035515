package dev.leasehold.scenarios.bench;

import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.slots.SlotClaim;
import dev.leasehold.store.slots.SlotRuns;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * fenced-write and slots: the fenced store measured side by side with plain JDBC on one database.
 *
 * <p>Why one file of about 300 lines: each fenced variant stands next to the plain JDBC statement it is compared to.
 */
final class DatabaseBench {

    /**
     * A database under test: its label (e.g. "H2 2.3.232"), a pool big enough for every thread, and whether it is
     * PostgreSQL or MariaDB/MySQL (else H2).
     */
    record Db(String label, BenchPool pool, boolean postgres, boolean mariaDb) {}

    private final boolean quick;
    private final String prefix;
    /** Tokens only grow, across every comparison on every row and resource. */
    private long token = 1;

    /** Whether this is a smoke run ({@code --quick}). */
    boolean quick() {
        return quick;
    }

    DatabaseBench(boolean quick, String prefix) {
        this.quick = quick;
        this.prefix = prefix;
    }

    /** A token higher than every one used so far in this run. */
    long nextToken() {
        return token++;
    }

    // ---- fenced-write -----------------------------------------------------------------------------------------

    /** What a plain JDBC transaction does on its connection. */
    @FunctionalInterface
    interface Body {
        void run(Connection c) throws SQLException;
    }

    /** {@code body} in a plain JDBC transaction: auto-commit off, the body, COMMIT, auto-commit back on. */
    static void plainTransaction(Db db, Body body) throws SQLException {
        try (Connection c = db.pool().getConnection()) {
            c.setAutoCommit(false);
            body.run(c);
            c.commit();
            c.setAutoCommit(true);
        }
    }

    /** One unit of work on row {@code row} of a thread. */
    interface Op {
        void run(int row, long token) throws Exception;
    }

    List<Row> fencedWrite(Db db) throws Exception {
        String table = prefix + "rows";
        StoreConfig config = StoreConfig.defaults().withTablePrefix(prefix);
        FencedSchema.install(db.pool(), config);
        try (Connection c = db.pool().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + table + " (id INT PRIMARY KEY, v BIGINT NOT NULL,"
                    + " token BIGINT NOT NULL)");
            s.execute("DELETE FROM " + table);
            for (int i = 0; i < 8; i++) {
                s.execute("INSERT INTO " + table + " (id, v, token) VALUES (" + i + ", 0, 0)");
            }
        }
        FenceGate gate = new FenceGate(db.pool(), config);
        String plain = "UPDATE " + table + " SET v = v + 1 WHERE id = ?";
        Op plainUpdate = (row, token) -> {
            try (Connection c = db.pool().getConnection();
                    PreparedStatement p = c.prepareStatement(plain)) {
                p.setInt(1, row);
                p.executeUpdate();
            }
        };
        Op fencedUpdate = (row, token) -> {
            try (Connection c = db.pool().getConnection();
                    PreparedStatement p = c.prepareStatement(
                            "UPDATE " + table + " SET v = v + 1, token = ? WHERE id = ? AND token <= ?")) {
                p.setLong(1, token);
                p.setInt(2, row);
                p.setLong(3, token);
                if (p.executeUpdate() != 1) {
                    throw new IllegalStateException("the fenced update was refused");
                }
            }
        };
        Op plainTx = (row, token) -> plainTransaction(db, c -> {
            try (PreparedStatement p = c.prepareStatement(plain)) {
                p.setInt(1, row);
                p.executeUpdate();
            }
        });
        Op gateTx = (row, token) -> gate.write("bench-" + row, token, tx -> {
            try (PreparedStatement p = tx.prepareStatement(plain)) {
                p.setInt(1, row);
                p.executeUpdate();
            }
        });
        // the check, the statement and the commit in one round trip on PostgreSQL
        Op gateStatement = (row, token) -> gate.update("bench-" + row, token, plain, row);
        List<Row> rows = new ArrayList<>();
        for (int threads : new int[] {1, 4}) {
            String where = db.label() + ", " + threads + " thread" + (threads > 1 ? "s" : "");
            rows.addAll(compare(
                    "fenced-write",
                    "plain UPDATE (" + where + ")",
                    "conditional UPDATE with token (" + where + ")",
                    threads,
                    plainUpdate,
                    fencedUpdate,
                    0.95,
                    ">= 0.95"));
            // FenceGate.write sends the check, then the work: one round trip more than the plain transaction. Its goal
            // (issue 41: within 0.05 of the check by hand) is printed on the one-resource rows, beside that ceiling
            rows.addAll(compare(
                    "fenced-write",
                    "plain transaction (" + where + ")",
                    "FenceGate.write (" + where + ")",
                    threads,
                    plainTx,
                    gateTx,
                    0,
                    ""));
            rows.addAll(compare(
                    "fenced-write",
                    "plain transaction (" + where + ")",
                    "FenceGate.update (" + where + ")",
                    threads,
                    plainTx,
                    gateStatement,
                    db.postgres() ? 0.90 : 0,
                    db.postgres() ? ">= 0.90" : ""));
            // and against the same statement in auto-commit mode, also one round trip: what the check itself costs
            rows.addAll(compare(
                    "fenced-write",
                    "plain UPDATE (" + where + ")",
                    "FenceGate.update (" + where + ")",
                    threads,
                    plainUpdate,
                    gateStatement,
                    0,
                    ""));
        }
        rows.addAll(new OneResourceBench(this).run(db, gate, config));
        return rows;
    }

    /** Interleaves samples of the two ops (A B, B A, ...); the ratio is the baseline's median time over ours. */
    List<Row> compare(
            String benchmark,
            String baselineName,
            String oursName,
            int threads,
            Op baseline,
            Op ours,
            double goal,
            String goalText)
            throws Exception {
        // more than 4 threads: the ops of 4 threads per sample, shared out, so that a sample takes as long
        return compare(
                benchmark,
                baselineName,
                oursName,
                threads,
                (quick ? 20 : 200) * 4 / Math.max(threads, 4),
                baseline,
                ours,
                goal,
                goalText);
    }

    /** {@link #compare} with {@code perThread} ops per thread in each sample. */
    List<Row> compare(
            String benchmark,
            String baselineName,
            String oursName,
            int threads,
            int perThread,
            Op baseline,
            Op ours,
            double goal,
            String goalText)
            throws Exception {
        // --quick proves every row runs: 8 small samples, not a measurement; a full run warms each side up with 3,000
        // ops first (15 rounds of 200), so that the JIT has compiled the store's code as in a long-running service
        int warmup = quick ? 1 : 15;
        int rounds = quick ? 8 : 30;
        Samples a = new Samples();
        Samples b = new Samples();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int i = 0; i < warmup + rounds; i++) {
                boolean baselineFirst = i % 2 == 0;
                long first = timePerOp(pool, threads, perThread, baselineFirst ? baseline : ours, nextToken());
                long second = timePerOp(pool, threads, perThread, baselineFirst ? ours : baseline, nextToken());
                if (i >= warmup) {
                    a.add(baselineFirst ? first : second);
                    b.add(baselineFirst ? second : first);
                }
            }
        } finally {
            pool.shutdownNow();
        }
        double ratio = a.median() / (double) b.median();
        return List.of(
                Row.durations(benchmark, baselineName, a, true),
                Row.durations(benchmark, oursName, b, true)
                        .compared(
                                String.format("%.2f", ratio),
                                goalText.isEmpty() ? "" : ElectionBench.goal(ratio >= goal, goalText)));
    }

    /** Time per operation when {@code threads} threads each run {@code perThread} ops on their own row. */
    private static long timePerOp(ExecutorService pool, int threads, int perThread, Op op, long token)
            throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> runs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int row = t;
            runs.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < perThread; i++) {
                    op.run(row, token);
                }
                return null;
            }));
        }
        long start = System.nanoTime();
        go.countDown();
        for (Future<?> run : runs) {
            run.get(5, TimeUnit.MINUTES);
        }
        return (System.nanoTime() - start) / ((long) threads * perThread);
    }

    // ---- slots ------------------------------------------------------------------------------------------------

    List<Row> slots(Db db) throws Exception {
        StoreConfig config = StoreConfig.defaults().withTablePrefix(prefix);
        FencedSchema.install(db.pool(), config);
        SlotRuns runs = new SlotRuns(db.pool(), config);
        int slots = quick ? 30 : 200;
        Samples decide = new Samples();
        int exactlyOne = 0;
        ExecutorService racers = Executors.newFixedThreadPool(10);
        Instant base = Instant.parse("2030-01-01T00:00:00Z").plusSeconds(System.nanoTime() % 1_000_000 * 60);
        try {
            for (int s = 0; s < slots; s++) {
                Instant slot = base.plusSeconds(60L * s);
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Optional<SlotClaim>>> attempts = new ArrayList<>();
                for (int r = 0; r < 10; r++) {
                    String runner = "replica-" + r;
                    attempts.add(racers.submit(() -> {
                        go.await();
                        return runs.tryClaim("bench", slot, runner, Duration.ofSeconds(30));
                    }));
                }
                long start = System.nanoTime();
                go.countDown();
                int winners = 0;
                for (Future<Optional<SlotClaim>> attempt : attempts) {
                    winners += attempt.get(1, TimeUnit.MINUTES).isPresent() ? 1 : 0;
                }
                decide.add(System.nanoTime() - start);
                exactlyOne += winners == 1 ? 1 : 0;
            }
        } finally {
            racers.shutdownNow();
        }
        return List.of(Row.durations("slots", "10 racers per slot (" + db.label() + ")", decide, false)
                .compared(
                        "",
                        ElectionBench.goal(
                                exactlyOne == slots, "exactly one winner: " + exactlyOne + " of " + slots + " slots")));
    }
}
