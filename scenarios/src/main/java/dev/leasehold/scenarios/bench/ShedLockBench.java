package dev.leasehold.scenarios.bench;

import dev.leasehold.shedlock.JdbcFencedLockProvider;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@code bench shedlock} (issue 44): {@code lock} + {@code unlock} per second, {@link JdbcFencedLockProvider} beside
 * ShedLock's own {@link JdbcTemplateLockProvider} (7.2.0, its default configuration: this JVM's clock, its {@code
 * shedlock} table) on the same PostgreSQL and the same pool, at 1 and 8 threads, each thread on a lock name of its own
 * ({@code lockAtMostFor} 30 s, {@code lockAtLeastFor} 0). The two sides alternate round by round after a warm-up. Goal:
 * the fenced provider at least ShedLock's rate. Where the time goes: {@link #NOTE}.
 */
final class ShedLockBench {

    /** The report's closing note: where the time goes. */
    static final String NOTE = "shedlock: both providers make one UPDATE per lock and one per unlock once a name's row"
            + " exists (ShedLock remembers the names it inserted), so both are bound by the database's commits (with"
            + " synchronous_commit=on, a WAL flush each; 8 threads share flushes). Ours is one autocommit conditional"
            + " UPDATE that also returns the token; ShedLock's JdbcTemplateLockProvider runs each statement in a"
            + " transaction of its own (a TransactionTemplate, REQUIRES_NEW, on a DataSourceTransactionManager it makes"
            + " when given none): an explicit COMMIT after the statement, one more round trip per call.";

    private static final int[] THREADS = {1, 8};

    private final boolean quick;
    private final String prefix;

    ShedLockBench(boolean quick, String prefix) {
        this.quick = quick;
        this.prefix = prefix;
    }

    List<Row> run(DatabaseBench.Db db) throws Exception {
        StoreConfig config = StoreConfig.defaults().withTablePrefix(prefix);
        FencedSchema.install(db.pool(), config);
        try (Connection c = db.pool().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + prefix + "shedlock (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL,"
                    + " locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
        }
        List<LockProvider> providers = List.of(
                new JdbcFencedLockProvider(db.pool(), config),
                new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                        .withJdbcTemplate(new JdbcTemplate(db.pool()))
                        .withTableName(prefix + "shedlock")
                        .build()));
        List<String> names = List.of("JdbcFencedLockProvider", "ShedLock JdbcTemplateLockProvider");
        int ops = quick ? 80 : 2_000;
        int rounds = quick ? 1 : 5;
        for (LockProvider provider : providers) {
            cycles(provider, quick ? 40 : 500, 2); // warm-up (JIT, the first INSERT of each name), not recorded
        }
        List<Row> rows = new ArrayList<>();
        for (int threads : THREADS) {
            List<Samples> samples = List.of(new Samples(), new Samples());
            for (int round = 0; round < rounds; round++) {
                for (int k = 0; k < providers.size(); k++) {
                    int v = (k + round) % providers.size(); // alternated, so that neither always runs first
                    samples.get(v).add(cycles(providers.get(v), ops, threads));
                }
            }
            String where = " (" + db.label() + ", " + threads + " thread" + (threads > 1 ? "s" : "")
                    + ", distinct lock names)";
            double ours = rate(samples.get(0));
            double theirs = rate(samples.get(1));
            rows.add(row(names.get(1) + where, samples.get(1), "", ""));
            rows.add(row(
                    names.get(0) + " over ShedLock" + where,
                    samples.get(0),
                    String.format("%.2f", ours / theirs),
                    ElectionBench.goal(ours / theirs >= 1.0, ">= 1.0x ShedLock")));
        }
        return rows;
    }

    /** {@code ops} lock + unlock pairs spread over {@code threads}, each on its own name; nanoseconds per pair. */
    private static long cycles(LockProvider provider, int ops, int threads) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            int share = Math.max(1, ops / threads);
            long started = System.nanoTime();
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String name = "bench-" + t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < share; i++) {
                        Optional<SimpleLock> lock = provider.lock(
                                new LockConfiguration(Instant.now(), name, Duration.ofSeconds(30), Duration.ZERO));
                        lock.orElseThrow(() -> new IllegalStateException("lock " + name + " not free"))
                                .unlock();
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            return (System.nanoTime() - started) / ((long) share * threads);
        } finally {
            pool.shutdownNow();
        }
    }

    private static double rate(Samples nanosPerPair) {
        return 1e9 / Math.max(1, nanosPerPair.median());
    }

    private static Row row(String variant, Samples nanosPerPair, String ratio, String goal) {
        return new Row(
                "shedlock",
                variant,
                nanosPerPair.count(),
                perSecond(nanosPerPair.median()),
                perSecond(nanosPerPair.percentile(90)),
                perSecond(nanosPerPair.percentile(99)),
                ratio,
                goal);
    }

    private static String perSecond(long nanosPerPair) {
        return String.format("%.0f lock+unlock/s", 1e9 / Math.max(1, nanosPerPair));
    }
}
