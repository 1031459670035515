package dev.leasehold.scenarios.incidents.shedlock;

import dev.leasehold.scenarios.Latches;
import dev.leasehold.scenarios.RunResult;
import dev.leasehold.scenarios.Scenario;
import dev.leasehold.scenarios.cli.Env;
import dev.leasehold.scenarios.report.Timeline;
import dev.leasehold.shedlock.FencedLocks;
import dev.leasehold.shedlock.JdbcFencedLockProvider;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StaleTokenException;
import dev.leasehold.store.StoreConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * ShedLock's overrun (issue 44): a {@code @SchedulerLock}-style nightly job ({@link DefaultLockingTaskExecutor},
 * {@code lockAtMostFor} 2 s) on two replicas, two threads of this process. replica-A takes the lock, looks at the
 * batch and is paused (simulated: its thread stalls until replica-B's run is over, well past the 2 s, as a GC pause or
 * a frozen VM would). replica-B's scheduler tries every 200 ms; once A's lock expired it takes the lock and runs the
 * job. Then A resumes and writes.
 * <ul>
 *   <li>as it happened: ShedLock's own {@link JdbcTemplateLockProvider} (its {@code shedlock} table): both write the
 *       batch, the duplicate.</li>
 *   <li>with Leasehold: {@link JdbcFencedLockProvider}; the job advances a {@link FenceGate} with {@link
 *       FencedLocks#currentToken()} and writes through it: B's token is higher, so A's late write is refused.</li>
 * </ul>
 */
public final class ShedLockOverrunScenario implements Scenario {

    static final String NAME = "shedlock-overrun";
    private static final String LOCK = "nightly-batch";
    private static final String BATCH = "batch-2026-12-07";
    private static final Duration AT_MOST = Duration.ofSeconds(2);
    private static final long TICK_MS = 200;
    private static final List<String> LANES = List.of("replica-A", "replica-B");

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String summary() {
        return "issue 44: a ShedLock job paused past lockAtMostFor; the next replica runs it; the batch written twice";
    }

    @Override
    public List<RunResult> run(Env env) throws Exception {
        return List.of(asItHappened(env), withLeasehold(env));
    }

    private RunResult asItHappened(Env env) throws Exception {
        env.out().println("-- as it happened: ShedLock's JdbcTemplateLockProvider, lockAtMostFor 2 s");
        DataSource ds = env.dataSource(NAME + "-shedlock");
        String prefix = env.tablePrefix();
        execute(
                ds,
                "CREATE TABLE " + prefix + "shedlock (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL,"
                        + " locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
        createBatchTable(ds, prefix);
        LockProvider provider = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                .withJdbcTemplate(new JdbcTemplate(ds))
                .withTableName(prefix + "shedlock")
                .build());
        Timeline timeline = new Timeline(NAME + ": as it happened", env.out(), LANES);
        BatchJob job = new BatchJob() {
            @Override
            public void prepare(String replica) throws SQLException {
                timeline.info(replica, "reads " + BATCH + ": " + rows(ds, prefix) + " rows written, writes it");
            }

            @Override
            public boolean write(String replica) throws SQLException {
                int before = rows(ds, prefix);
                insert(ds, prefix, replica, 0);
                String text = "writes " + BATCH + " (no check: the lock was its only guard)";
                if (before > 0) {
                    timeline.problem(replica, text + ": written a second time", BATCH);
                } else {
                    timeline.info(replica, text, BATCH);
                }
                return true;
            }
        };
        try {
            replicas(timeline, provider, job, "");
            timeline.finish();
            List<String> writers = writers(ds, prefix);
            List<String> verdicts = List.of(
                    "batch written by: " + String.join(", ", writers),
                    "batch written twice: " + (writers.size() > 1 ? "yes" : "no"));
            env.printVerdicts(verdicts);
            return new RunResult(
                    NAME,
                    "as it happened",
                    true,
                    timeline,
                    verdicts,
                    writers.size() == 2,
                    "the batch written by both replicas");
        } finally {
            env.dropTables(ds, prefix);
        }
    }

    private RunResult withLeasehold(Env env) throws Exception {
        env.out().println("-- with Leasehold: JdbcFencedLockProvider (a token per lock), writes through a FenceGate");
        DataSource ds = env.dataSource(NAME + "-leasehold");
        String prefix = env.tablePrefix();
        StoreConfig config = StoreConfig.defaults().withTablePrefix(prefix);
        FencedSchema.install(ds, config);
        createBatchTable(ds, prefix);
        LockProvider provider = new JdbcFencedLockProvider(ds, config);
        FenceGate gate = new FenceGate(ds, config);
        Timeline timeline = new Timeline(NAME + ": with Leasehold", env.out(), LANES);
        List<String> refused = new ArrayList<>();
        BatchJob job = new BatchJob() {
            @Override
            public void prepare(String replica) {
                long token = FencedLocks.currentToken();
                gate.advance(BATCH, token, replica);
                timeline.info(replica, "token " + token + ": advances the gate on " + BATCH + " (fence first)");
            }

            @Override
            public boolean write(String replica) {
                long token = FencedLocks.currentToken();
                try {
                    gate.write(BATCH, token, tx -> insert(tx, prefix, replica, token));
                    timeline.accepted(
                            replica, "writes " + BATCH + " through the gate with token " + token, token, BATCH);
                    return true;
                } catch (StaleTokenException e) {
                    synchronized (refused) {
                        refused.add(replica + "'s with token " + token + " (highest " + e.highestToken() + ")");
                    }
                    timeline.rejected(
                            replica,
                            "late write of " + BATCH + " with token " + token + " refused: StaleTokenException"
                                    + " (highest " + e.highestToken() + "); nothing written",
                            token,
                            BATCH);
                    return false;
                }
            }
        };
        try {
            replicas(timeline, provider, job, " (token in FencedLocks)");
            timeline.finish();
            List<String> writers = writers(ds, prefix);
            List<String> verdicts = List.of(
                    "batch written by: " + String.join(", ", writers),
                    "batch written twice: " + (writers.size() > 1 ? "yes" : "no"),
                    "late writes refused: " + (refused.isEmpty() ? "none" : String.join(", ", refused)));
            env.printVerdicts(verdicts);
            boolean held = writers.equals(List.of("replica-B"))
                    && refused.size() == 1
                    && refused.get(0).startsWith("replica-A");
            return new RunResult(
                    NAME,
                    "with Leasehold",
                    false,
                    timeline,
                    verdicts,
                    held,
                    "the batch written once, by replica-B, and replica-A's late write refused");
        } finally {
            env.dropTables(ds, prefix);
        }
    }

    /**
     * The two replicas: A runs the job and is paused between looking at the batch and writing it; B's scheduler tries
     * every 200 ms until the lock lets it run the job; A's pause ends once B's run is over.
     */
    private static void replicas(Timeline timeline, LockProvider provider, BatchJob job, String lockNote)
            throws Exception {
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
        CountDownLatch aPrepared = new CountDownLatch(1);
        CountDownLatch bDone = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread a = new Thread(
                () -> {
                    try {
                        long asked = timeline.now(); // the lock's lockAtMostFor counts from its configuration's instant
                        executor.executeWithLock(
                                (LockingTaskExecutor.Task) () -> {
                                    String replica = "replica-A";
                                    lockTaken(timeline, replica, lockNote, asked);
                                    job.prepare(replica);
                                    aPrepared.countDown();
                                    long from = timeline.now();
                                    // The simulated pause (GC, a frozen VM): A's thread stalls until B's run is over,
                                    // well past its 2 s lock.
                                    Latches.await(bDone, 30_000, "replica-B's run");
                                    timeline.span(replica, Timeline.SpanKind.PAUSE, "paused", from, timeline.now());
                                    timeline.info(replica, "resumes after " + (timeline.now() - from) + " ms");
                                    job.write(replica);
                                },
                                config());
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                        aPrepared.countDown();
                    }
                },
                "scenario-replica-A");
        a.start();
        try {
            Latches.await(aPrepared, 30_000, "replica-A's run");
            boolean ran = false;
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!ran && failure.get() == null && System.nanoTime() < deadline) {
                long asked = timeline.now();
                ran = executor.executeWithLock(
                                () -> {
                                    String replica = "replica-B";
                                    lockTaken(timeline, replica, lockNote, asked);
                                    job.prepare(replica);
                                    job.write(replica);
                                    return true;
                                },
                                config())
                        .wasExecuted();
                if (!ran) {
                    Thread.sleep(TICK_MS); // replica-B's scheduler: the next try 200 ms later
                }
            }
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        } finally {
            bDone.countDown();
            a.join(30_000);
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a replica failed: " + failure.get(), failure.get());
        }
    }

    /** The lock's span from the moment it was asked for (when its configuration was made) to lockAtMostFor later. */
    private static void lockTaken(Timeline timeline, String replica, String note, long asked) {
        timeline.span(replica, Timeline.SpanKind.LEASE, "lock (lockAtMostFor 2 s)", asked, asked + AT_MOST.toMillis());
        timeline.info(replica, "takes lock " + LOCK + note + ", runs the job");
    }

    private static LockConfiguration config() {
        return new LockConfiguration(Instant.now(), LOCK, AT_MOST, Duration.ZERO);
    }

    private static void createBatchTable(DataSource ds, String prefix) throws SQLException {
        execute(
                ds,
                "CREATE TABLE " + prefix + "nightly_batch (batch VARCHAR(64) NOT NULL,"
                        + " writer VARCHAR(20) NOT NULL, token BIGINT NOT NULL)");
    }

    private static void insert(DataSource ds, String prefix, String writer, long token) throws SQLException {
        try (Connection c = ds.getConnection()) {
            insert(c, prefix, writer, token);
        }
    }

    private static void insert(Connection c, String prefix, String writer, long token) throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement("INSERT INTO " + prefix + "nightly_batch (batch, writer, token) VALUES (?, ?, ?)")) {
            s.setString(1, BATCH);
            s.setString(2, writer);
            s.setLong(3, token);
            s.executeUpdate();
        }
    }

    private static int rows(DataSource ds, String prefix) throws SQLException {
        return writers(ds, prefix).size();
    }

    private static List<String> writers(DataSource ds, String prefix) throws SQLException {
        List<String> writers = new ArrayList<>();
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT writer FROM " + prefix + "nightly_batch ORDER BY writer")) {
            while (rs.next()) {
                writers.add(rs.getString(1));
            }
        }
        return writers;
    }

    private static void execute(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
