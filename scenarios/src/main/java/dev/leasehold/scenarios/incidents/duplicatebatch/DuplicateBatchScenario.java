package dev.leasehold.scenarios.incidents.duplicatebatch;

import dev.leasehold.scenarios.RunResult;
import dev.leasehold.scenarios.Scenario;
import dev.leasehold.scenarios.cli.Env;
import dev.leasehold.scenarios.incidents.RedisModel;
import dev.leasehold.scenarios.report.Timeline;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.claims.BatchClaim;
import dev.leasehold.store.claims.BatchClaims;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * Incident 1, the duplicate batch. Two pods, each firing {@code tick} every 400 ms from a fixed-rate timer that does
 * not wait for the previous tick (like setInterval). A tick: {@code SET lease:batch <pod> NX PX 1000}, take the next
 * batch not yet done, process it (300 ms; pod-A's first tick 2 s), push it, {@code DEL lease:batch}.
 *
 * <p>With Leasehold: {@link BatchClaims} (one atomic claim with SKIP LOCKED, a lease from the database clock, a per-row
 * fence) and a loop that never overlaps ({@code while (running) { tick(); sleep(); }}); a finish whose fence is no
 * longer current changes nothing and tells the pod it lost the claim.
 *
 * <p>The lock form (issue 45), the same incident with a lock around the push in place of the Redis lease, each run in
 * its own class: {@link LockAsItHappened} (Spring Integration's {@code JdbcLockRegistry}: no token, the paused pod's
 * lock expires, batch-0 pushed twice) and {@link LockWithLeasehold} ({@code FencedLockRegistry.jdbc}: the push goes
 * through a {@code FenceGate} with the lock's token, the late push is refused); their story is {@link LockTicks}.
 *
 * <p>Why one file of more than 300 lines: one story in two runs told in order, as the timeline shows it; split, the
 * reader would have to assemble the story from several files.
 */
public final class DuplicateBatchScenario implements Scenario {

    static final String NAME = "duplicate-batch";
    private static final long PERIOD_MS = 400;
    private static final long LEASE_MS = 1_000;
    private static final long WORK_MS = 300;
    private static final long LONG_WORK_MS = 2_000;
    private static final long RUN_FOR_MS = 3_300;
    private static final long POD_A_START_MS = 449;
    static final long POD_B_START_MS = 799;
    private static final int BATCHES = 10;
    private static final String KEY = "lease:batch";
    /** Replays of the broken run, at most, when the timers ran too late to play the incident out. */
    private static final int ATTEMPTS = 3;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String summary() {
        return "incident 1: a Redis lease (SET NX PX, DEL), a fixed-rate timer, then a lock registry; a batch pushed"
                + " to accounting twice";
    }

    @Override
    public List<RunResult> run(Env env) throws Exception {
        return List.of(
                asItHappened(env, POD_B_START_MS),
                withLeasehold(env),
                LockAsItHappened.run(env),
                LockWithLeasehold.run(env));
    }

    // ---- as it happened -------------------------------------------------------------------------------------

    private record Tick(String pod, int number, String batch, long leaseEndsAt) {}

    /** What the broken run shares between its ticks. Every method is synchronized on this object. */
    private static final class Pods {
        final Timeline timeline;
        final RedisModel redis = new RedisModel();
        final List<Tick> running = new ArrayList<>();
        final List<Tick> reportedExpired = new ArrayList<>();
        final List<String> done = new ArrayList<>();
        final Map<String, Integer> pushes = new TreeMap<>();
        boolean expiredMidWork;
        boolean overlapped;
        boolean foreignDel;
        /** Whether pod-A's long tick ended while pod-B held the lease, the incident's interleaving. */
        boolean interleaved;

        Pods(Timeline timeline) {
            this.timeline = timeline;
        }

        synchronized void overlapCheck(String pod, int number) {
            running.stream().filter(t -> t.pod().equals(pod)).findFirst().ifPresent(other -> {
                overlapped = true;
                timeline.problem(
                        pod,
                        "tick#" + number + " fires while tick#" + other.number()
                                + " still runs (the fixed-rate timer does not wait)");
            });
        }

        synchronized Tick acquire(String pod, int number) {
            if (!redis.setNxPx(KEY, pod, LEASE_MS)) {
                return null;
            }
            long now = timeline.now();
            String batch = nextBatch();
            for (Tick other : running) {
                if (other.leaseEndsAt() < now && !reportedExpired.contains(other)) {
                    reportedExpired.add(other);
                    expiredMidWork = true;
                    timeline.problem(
                            other.pod(),
                            "tick#" + other.number() + " still processing " + other.batch()
                                    + ", but its lease expired at t=" + other.leaseEndsAt() + "ms");
                }
            }
            Tick tick = new Tick(pod, number, batch, now + LEASE_MS);
            running.add(tick);
            timeline.span(pod, Timeline.SpanKind.LEASE, "lease (SET NX PX 1000)", now, now + LEASE_MS);
            timeline.info(pod, "tick#" + number + " got lease, processing " + batch, batch);
            notifyAll();
            return tick;
        }

        private String nextBatch() {
            for (int i = 0; i < BATCHES; i++) {
                if (!done.contains("batch-" + i)) {
                    return "batch-" + i;
                }
            }
            return "none";
        }

        synchronized void finish(Tick tick) {
            pushes.merge(tick.batch(), 1, Integer::sum);
            if (!done.contains(tick.batch())) {
                done.add(tick.batch());
            }
            running.remove(tick);
            String owner = redis.del(KEY);
            String text = "tick#" + tick.number() + " done, pushed " + tick.batch() + ", DEL lease (owner was "
                    + (owner == null ? "nobody: it had expired" : owner) + ")";
            if (owner != null && !owner.equals(tick.pod())) {
                foreignDel = true;
                timeline.problem(tick.pod(), text, "pushed " + tick.batch());
            } else {
                timeline.info(tick.pod(), text, "pushed " + tick.batch());
            }
            notifyAll();
        }

        /**
         * Waits until {@code pod} holds the lease in a running tick (the decisive step, ordered by an event), and
         * records whether it did.
         */
        synchronized void awaitHolder(String pod, long timeoutMillis) throws InterruptedException {
            long deadline = System.currentTimeMillis() + timeoutMillis;
            while (running.stream().noneMatch(t -> t.pod().equals(pod) && pod.equals(redis.get(KEY)))) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    return;
                }
                wait(left);
            }
            interleaved = true;
        }

        synchronized List<String> processedTwice() {
            return pushes.entrySet().stream()
                    .filter(e -> e.getValue() > 1)
                    .map(Map.Entry::getKey)
                    .toList();
        }
    }

    /**
     * The broken run, replayed on real timers. pod-B takes the lease only in the 100 ms gaps pod-A's ticks leave
     * (300 ms of work every 400 ms); on a machine busy enough to run the timers late, pod-B can miss every gap, and
     * then the replay did not play the incident out (it says nothing of the code). Such a replay is said and run
     * again, at most {@value #ATTEMPTS} times in all; the verdicts are the last replay's.
     *
     * @param podBStartMs when pod-B's timer first fires ({@value #POD_B_START_MS} ms: mid-gap); a test puts it after
     *                    the replay to play a machine whose timers run too late for pod-B to take the lease
     */
    static RunResult asItHappened(Env env, long podBStartMs) throws InterruptedException {
        env.out().println("-- as it happened: Redis SET NX PX 1000 + DEL, setInterval(tick, 400)");
        for (int attempt = 1; ; attempt++) {
            Timeline timeline = new Timeline(NAME + ": as it happened", env.out(), List.of("pod-A", "pod-B"));
            Pods pods = new Pods(timeline);
            replay(timeline, pods, podBStartMs);
            if (pods.interleaved || attempt == ATTEMPTS) {
                return verdicts(env, timeline, pods);
            }
            env.out()
                    .printf(
                            "  the timers ran late on this busy machine: pod-B never got a gap to take the lease while"
                                    + " tick#1 ran; replaying (attempt %d of %d)%n",
                            attempt + 1, ATTEMPTS);
        }
    }

    private static void replay(Timeline timeline, Pods pods, long podBStartMs) throws InterruptedException {
        AtomicBoolean podAHadLongTick = new AtomicBoolean();
        ExecutorService ticks = Executors.newCachedThreadPool();
        ScheduledExecutorService timer = Executors.newScheduledThreadPool(2);
        try {
            for (String pod : List.of("pod-A", "pod-B")) {
                AtomicInteger numbers = new AtomicInteger();
                timer.scheduleAtFixedRate(
                        () -> ticks.execute(() -> {
                            int number = numbers.incrementAndGet();
                            pods.overlapCheck(pod, number);
                            Tick tick = pods.acquire(pod, number);
                            if (tick == null) {
                                return;
                            }
                            int work =
                                    timeline.begin(pod, Timeline.SpanKind.WORK, "tick#" + number + " " + tick.batch());
                            try {
                                if (pod.equals("pod-A") && podAHadLongTick.compareAndSet(false, true)) {
                                    Thread.sleep(LONG_WORK_MS); // the story's 2 s tick (GC pause, slow accounting API)
                                    // it ends while pod-B holds the lease, as in the incident; pod-B can take it only
                                    // while the timers run (a late tick of the last period included)
                                    pods.awaitHolder("pod-B", RUN_FOR_MS + PERIOD_MS - timeline.now());
                                } else {
                                    Thread.sleep(WORK_MS); // the story's normal processing time
                                }
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            timeline.end(work);
                            pods.finish(tick);
                        }),
                        pod.equals("pod-A") ? POD_A_START_MS : podBStartMs,
                        PERIOD_MS,
                        TimeUnit.MILLISECONDS);
            }
            Thread.sleep(RUN_FOR_MS); // the length of the replay
        } finally {
            timer.shutdownNow();
            ticks.shutdown();
            ticks.awaitTermination(10, TimeUnit.SECONDS);
        }
        timeline.finish();
    }

    private static RunResult verdicts(Env env, Timeline timeline, Pods pods) {
        List<String> twice = pods.processedTwice();
        List<String> verdicts = List.of(
                "batches processed twice: " + (twice.isEmpty() ? "none" : String.join(", ", twice)),
                "lease expired mid-work: " + yesNo(pods.expiredMidWork),
                "overlapping ticks of one pod: " + yesNo(pods.overlapped),
                "a pod deleted another pod's lease: " + yesNo(pods.foreignDel));
        env.printVerdicts(verdicts);
        boolean reproduced = twice.contains("batch-0") && pods.expiredMidWork && pods.overlapped && pods.foreignDel;
        return new RunResult(
                NAME,
                "as it happened",
                true,
                timeline,
                verdicts,
                reproduced,
                "batch-0 processed twice and all three bugs shown");
    }

    // ---- with Leasehold -------------------------------------------------------------------------------------

    private RunResult withLeasehold(Env env) throws InterruptedException {
        env.out()
                .println("-- with Leasehold: BatchClaims (SKIP LOCKED, lease from the database clock, fence),"
                        + " a loop that never overlaps");
        DataSource ds = env.dataSource(NAME + "-leasehold");
        String prefix = env.tablePrefix();
        StoreConfig config = StoreConfig.defaults().withTablePrefix(prefix);
        FencedSchema.install(ds, config);
        BatchClaims claims = new BatchClaims(ds, config);
        for (int i = 0; i < BATCHES; i++) {
            claims.enqueue("batch-" + i, "orders " + (i * 100 + 1) + ".." + (i * 100 + 100));
        }
        Timeline timeline = new Timeline(NAME + ": with Leasehold", env.out(), List.of("pod-A", "pod-B"));
        Map<String, Integer> pushed = new TreeMap<>();
        List<String> lateFinishes = new ArrayList<>();
        Object claimed = new Object();
        AtomicBoolean podAHadLongTick = new AtomicBoolean();
        List<Thread> loops = new ArrayList<>();
        try {
            for (String pod : List.of("pod-A", "pod-B")) {
                Thread loop = new Thread(
                        () -> {
                            try {
                                Thread.sleep(pod.equals("pod-A") ? POD_A_START_MS : POD_B_START_MS); // the pod's start
                                int number = 0;
                                while (timeline.now() < RUN_FOR_MS) {
                                    number++;
                                    Optional<BatchClaim> claim = claims.claimNext(pod, Duration.ofMillis(LEASE_MS));
                                    if (claim.isPresent()) {
                                        process(
                                                timeline,
                                                claims,
                                                claim.get(),
                                                number,
                                                podAHadLongTick,
                                                claimed,
                                                pushed,
                                                lateFinishes);
                                    }
                                    Thread.sleep(
                                            PERIOD_MS); // the pause between ticks: the next tick starts after this one
                                }
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        "scenario-" + pod);
                loops.add(loop);
                loop.start();
            }
            for (Thread loop : loops) {
                loop.join(30_000);
            }
        } finally {
            loops.forEach(Thread::interrupt);
            env.dropTables(ds, prefix);
        }
        timeline.finish();
        List<String> twice;
        synchronized (pushed) {
            twice = pushed.entrySet().stream()
                    .filter(e -> e.getValue() > 1)
                    .map(Map.Entry::getKey)
                    .toList();
        }
        List<String> verdicts = List.of(
                "batches processed twice: " + (twice.isEmpty() ? "none" : String.join(", ", twice)),
                "late finishes rejected: " + (lateFinishes.isEmpty() ? "none" : String.join(", ", lateFinishes)));
        env.printVerdicts(verdicts);
        boolean held = twice.isEmpty() && lateFinishes.stream().anyMatch(f -> f.startsWith("batch-0 (pod-A"));
        return new RunResult(
                NAME,
                "with Leasehold",
                false,
                timeline,
                verdicts,
                held,
                "no batch processed twice, and pod-A's late finish of batch-0 rejected");
    }

    private static void process(
            Timeline timeline,
            BatchClaims claims,
            BatchClaim claim,
            int number,
            AtomicBoolean podAHadLongTick,
            Object claimed,
            Map<String, Integer> pushed,
            List<String> lateFinishes)
            throws InterruptedException {
        String pod = claim.owner();
        long now = timeline.now();
        timeline.span(pod, Timeline.SpanKind.LEASE, "claim fence " + claim.fence(), now, now + LEASE_MS);
        timeline.info(
                pod,
                "tick#" + number + " claimed " + claim.batchId() + " (fence " + claim.fence()
                        + ", lease 1 s by the database clock), processing",
                claim.batchId());
        synchronized (claimed) {
            claimed.notifyAll();
        }
        int work = timeline.begin(pod, Timeline.SpanKind.WORK, "tick#" + number + " " + claim.batchId());
        if (pod.equals("pod-A") && podAHadLongTick.compareAndSet(false, true)) {
            Thread.sleep(LONG_WORK_MS); // the story's 2 s tick, longer than the lease
            awaitReclaim(claims, claim, claimed); // it ends after someone else claimed the batch again
        } else {
            Thread.sleep(WORK_MS); // the story's normal processing time
        }
        timeline.end(work);
        if (claims.finish(claim, "pushed by " + pod)) {
            synchronized (pushed) {
                pushed.merge(claim.batchId(), 1, Integer::sum);
            }
            timeline.accepted(
                    pod,
                    "tick#" + number + " finished " + claim.batchId() + " with fence " + claim.fence()
                            + " (1 row): pushed",
                    claim.fence(),
                    claim.batchId());
        } else {
            synchronized (lateFinishes) {
                lateFinishes.add(claim.batchId() + " (" + pod + ", fence " + claim.fence() + ")");
            }
            timeline.rejected(
                    pod,
                    "tick#" + number + " late finish of " + claim.batchId() + " with fence " + claim.fence()
                            + ": 0 rows, the claim was lost; nothing pushed",
                    claim.fence(),
                    claim.batchId());
        }
    }

    private static void awaitReclaim(BatchClaims claims, BatchClaim claim, Object claimed) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 5_000;
        synchronized (claimed) {
            while (claims.state(claim.batchId())
                    .map(s -> s.fence() == claim.fence())
                    .orElse(false)) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    return;
                }
                claimed.wait(left);
            }
        }
    }

    private static String yesNo(boolean value) {
        return value ? "yes" : "no";
    }
}
