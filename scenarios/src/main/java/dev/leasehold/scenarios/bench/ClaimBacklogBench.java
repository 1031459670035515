package dev.leasehold.scenarios.bench;

import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.claims.BatchClaim;
import dev.leasehold.store.claims.BatchClaims;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

/**
 * claim-backlog: what one {@code claimNext} costs on an empty queue and behind a backlog of pending and finished
 * batches, side by side in one run (two table prefixes on one database, samples interleaved). Issue 10's goal: the
 * ratio of the medians at most 2, i.e. claim cost independent of the backlog. Each sample claims one batch (timed)
 * and finishes it (not timed); the empty queue gets one batch enqueued before each of its samples.
 */
final class ClaimBacklogBench {

    private static final Duration LEASE = Duration.ofMinutes(5);

    private final boolean quick;
    private final String prefix;

    ClaimBacklogBench(boolean quick, String prefix) {
        this.quick = quick;
        this.prefix = prefix;
    }

    List<Row> run(DatabaseBench.Db db) throws SQLException {
        int backlog = quick ? 20_000 : 100_000;
        int warmup = quick ? 10 : 50;
        int samples = quick ? 40 : 400;
        StoreConfig emptyConfig = StoreConfig.defaults().withTablePrefix(prefix + "e_");
        StoreConfig backlogConfig = StoreConfig.defaults().withTablePrefix(prefix + "b_");
        FencedSchema.install(db.pool(), emptyConfig);
        FencedSchema.install(db.pool(), backlogConfig);
        fill(db, prefix + "b_batches", backlog);
        BatchClaims empty = new BatchClaims(db.pool(), emptyConfig);
        BatchClaims behind = new BatchClaims(db.pool(), backlogConfig);
        Samples emptySamples = new Samples();
        Samples backlogSamples = new Samples();
        for (int i = 0; i < warmup + samples; i++) {
            boolean emptyFirst = i % 2 == 0;
            long first = emptyFirst ? claimFromEmpty(empty, i) : claim(behind);
            long second = emptyFirst ? claim(behind) : claimFromEmpty(empty, i);
            if (i >= warmup) {
                emptySamples.add(emptyFirst ? first : second);
                backlogSamples.add(emptyFirst ? second : first);
            }
        }
        double ratio = backlogSamples.median() / (double) emptySamples.median();
        String where = db.label();
        return List.of(
                Row.durations("claim-backlog", "claimNext, empty queue (" + where + ")", emptySamples, true),
                Row.durations(
                                "claim-backlog",
                                String.format("claimNext behind %,d pending + %,d done (%s)", backlog, backlog, where),
                                backlogSamples,
                                true)
                        .compared(String.format("%.2f", ratio), ElectionBench.goal(ratio <= 2, "<= 2")));
    }

    private static long claimFromEmpty(BatchClaims claims, int i) {
        claims.enqueue("only-" + i, "p");
        return claim(claims);
    }

    /** Nanoseconds for one claimNext; the claim is then finished, untimed. */
    private static long claim(BatchClaims claims) {
        long start = System.nanoTime();
        BatchClaim claim =
                claims.claimNext("bench", LEASE).orElseThrow(() -> new IllegalStateException("nothing to claim"));
        long took = System.nanoTime() - start;
        if (!claims.finish(claim, "ok")) {
            throw new IllegalStateException("lost the claim on " + claim.batchId());
        }
        return took;
    }

    /**
     * {@code n} done batches, then {@code n} pending ones (so a scan in enqueue order meets the done ones first), in
     * two statements; then the planner's statistics are refreshed, as autovacuum would after such a load.
     */
    private static void fill(DatabaseBench.Db db, String table, int n) throws SQLException {
        String ids = db.postgres()
                ? "generate_series(1, " + n + ") AS g(x)"
                : db.mariaDb() ? "(SELECT seq AS x FROM seq_1_to_" + n + ") AS g" : "SYSTEM_RANGE(1, " + n + ")";
        String now = db.postgres() ? "now()" : db.mariaDb() ? "UTC_TIMESTAMP(6)" : "CURRENT_TIMESTAMP";
        String done = db.mariaDb() ? "CONCAT('done-', x)" : "'done-' || x";
        String pending = db.mariaDb() ? "CONCAT('pending-', x)" : "'pending-' || x";
        try (Connection c = db.pool().getConnection();
                Statement s = c.createStatement()) {
            s.execute("INSERT INTO " + table + " (id, payload, status, fence, attempts, result, enqueued_at,"
                    + " finished_at) SELECT " + done + ", 'p', 'done', 1, 1, 'ok', " + now + ", " + now + " FROM "
                    + ids);
            s.execute("INSERT INTO " + table + " (id, payload, status, fence, attempts, enqueued_at) SELECT" + " "
                    + pending + ", 'p', 'pending', 0, 0, " + now + " FROM " + ids);
            s.execute(db.postgres() ? "ANALYZE " + table : db.mariaDb() ? "ANALYZE TABLE " + table : "ANALYZE");
        }
    }
}
