package dev.leasehold.scenarios;

import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.slots.SlotClaim;
import dev.leasehold.store.slots.SlotRuns;
import dev.leasehold.testkit.Ddl;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * Case 3: one job per minute across ten replicas, with minutes compressed to about a second. The story: slots 03:00
 * to 03:07; the winner of 03:02 crashes mid-run; the winner of 03:03 is slow (not dead) and outlives its lease; a
 * deploy at 03:05 leaves no replica alive for 03:05 and 03:06.
 *
 * <p>As it happened: a plain "am I leader?" check per replica (a lease with heartbeats, like incident 1's) and a
 * job_runs table without a unique slot. With Leasehold: {@link SlotRuns} (insert-if-absent on (job, slot), a sweep
 * that takes over expired runs with a higher fence, catch-up of missing slots).
 *
 * <p>Why one file of more than 300 lines: one story in two runs (as it happened, with Leasehold) told in order, step
 * by step, as the timeline shows it; split, the reader would have to assemble the story from several files.
 */
final class MinuteSlotsScenario implements Scenario {

    static final String NAME = "minute-slots";
    private static final int REPLICAS = 10;
    private static final int SLOTS = 8;
    private static final Instant FIRST = Instant.parse("2026-11-29T03:00:00Z");
    private static final Duration MINUTE = Duration.ofMinutes(1);
    private static final long RUN_MS = 150;
    private static final long SLOW_RUN_MS = 1_500;
    private static final long LEASE_MS = 500;
    private static final long SLOT_MS = 1_000;
    private static final int CRASHING_SLOT = 2;
    private static final int SLOW_SLOT = 3;
    private static final List<Integer> DEPLOY_GAP = List.of(5, 6);
    private static final String JOB = "nightly-report";
    private static final DateTimeFormatter HHMM =
            DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String summary() {
        return "case 3: one job per minute across 10 replicas; a crash, a slow runner, a deploy gap";
    }

    @Override
    public List<RunResult> run(Env env) throws Exception {
        return List.of(asItHappened(env), withLeasehold(env));
    }

    static Instant slot(int index) {
        return FIRST.plus(MINUTE.multipliedBy(index));
    }

    static String hhmm(Instant slot) {
        return HHMM.format(slot);
    }

    private static List<String> replicas() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < REPLICAS; i++) {
            names.add("replica-" + i);
        }
        return names;
    }

    // ---- as it happened -------------------------------------------------------------------------------------

    private RunResult asItHappened(Env env) throws Exception {
        env.out()
                .println("-- as it happened: each replica asks \"am I leader?\" (a lease with heartbeats);"
                        + " job_runs has no unique slot");
        Timeline timeline = new Timeline(NAME + ": as it happened", env.out(), replicas());
        DataSource ds = env.dataSource(NAME + "-broken");
        String table = env.tablePrefix() + "job_runs";
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (id " + Ddl.identity(c) + " PRIMARY KEY,"
                    + " slot VARCHAR(5) NOT NULL, runner VARCHAR(20) NOT NULL, completed BOOLEAN NOT NULL)");
        }
        RedisModel leaderLease = new RedisModel();
        String key = "leader:" + JOB;
        List<Thread> running = new ArrayList<>();
        Set<String> down = new HashSet<>();
        try {
            String leader = campaign(leaderLease, key, timeline, down);
            Heartbeat heartbeat = new Heartbeat(leaderLease, key, leader);
            for (int index = 0; index < SLOTS; index++) {
                String at = hhmm(slot(index));
                if (DEPLOY_GAP.contains(index)) {
                    heartbeat.stop();
                    down.addAll(replicas());
                    timeline.problem("replica-0", "slot " + at + ": deploy in progress, no replica alive", at);
                    Thread.sleep(SLOT_MS); // the story's minute
                    continue;
                }
                if (index == DEPLOY_GAP.get(DEPLOY_GAP.size() - 1) + 1) {
                    down.clear();
                    timeline.info("replica-0", "deploy done: replicas back; nothing scans for missed slots");
                }
                if (leaderLease.get(key) == null) {
                    heartbeat.stop();
                    leader = campaign(leaderLease, key, timeline, down);
                    heartbeat = new Heartbeat(leaderLease, key, leader);
                }
                String runner = leader;
                timeline.info(runner, "slot " + at + ": am I leader? yes: runs it", at);
                if (index == CRASHING_SLOT) {
                    insertRun(ds, table, at, runner, false);
                    heartbeat.stop();
                    down.add(runner);
                    timeline.problem(runner, "slot " + at + ": CRASHED mid-run; nobody re-runs the slot", at);
                } else if (index == SLOW_SLOT) {
                    heartbeat.pause();
                    CountDownLatch secondRunStarted = new CountDownLatch(1);
                    int work = timeline.begin(runner, Timeline.SpanKind.PAUSE, "slow run (GC pause): no heartbeats");
                    Heartbeat slowHeartbeat = heartbeat;
                    Thread slow = new Thread(() -> {
                        try {
                            Thread.sleep(SLOW_RUN_MS); // the story's slow run, longer than the leader lease
                            Latches.await(secondRunStarted, 10_000, "another replica runs the slot");
                            timeline.end(work);
                            insertRun(ds, table, at, runner, true);
                            timeline.problem(
                                    runner,
                                    "slot " + at + ": slow run completes (it never knew it lost" + " the lease)",
                                    at);
                            slowHeartbeat.stop();
                        } catch (Exception e) {
                            timeline.problem(runner, "slow run failed: " + e);
                        }
                    });
                    running.add(slow);
                    slow.start();
                    Thread.sleep(LEASE_MS + 200); // the lease runs out while the slow run is paused
                    Set<String> busy = new HashSet<>(down);
                    busy.add(runner); // paused: it cannot campaign (nor notice anything)
                    leader = campaign(leaderLease, key, timeline, busy);
                    heartbeat = new Heartbeat(leaderLease, key, leader);
                    timeline.problem(
                            leader,
                            "slot " + at + ": am I leader? yes; the slot has no completed run:" + " runs it AGAIN",
                            at);
                    secondRunStarted.countDown();
                    Thread.sleep(RUN_MS); // the story's run time
                    insertRun(ds, table, at, leader, true);
                    slow.join(10_000);
                    continue;
                } else {
                    Thread.sleep(RUN_MS); // the story's run time
                    insertRun(ds, table, at, runner, true);
                    timeline.info(runner, "slot " + at + ": done", at);
                }
                Thread.sleep(SLOT_MS - RUN_MS); // the rest of the story's minute
            }
            heartbeat.stop();
            timeline.finish();
            Map<String, Integer> runs = runsBySlot(ds, table);
            List<String> duplicates = runs.entrySet().stream()
                    .filter(e -> e.getValue() > 1)
                    .map(Map.Entry::getKey)
                    .toList();
            List<String> missing = runs.entrySet().stream()
                    .filter(e -> e.getValue() == 0)
                    .map(Map.Entry::getKey)
                    .toList();
            List<String> verdicts =
                    List.of("duplicate slots: " + listOrNone(duplicates), "missing slots: " + listOrNone(missing));
            env.printVerdicts(verdicts);
            return new RunResult(
                    NAME,
                    "as it happened",
                    true,
                    timeline,
                    verdicts,
                    !duplicates.isEmpty() && !missing.isEmpty(),
                    "duplicate and missing slots");
        } finally {
            running.forEach(Thread::interrupt);
            env.dropTables(ds, table);
        }
    }

    /** A leader's heartbeat thread: renews the lease every LEASE_MS / 3 until stopped; can be paused (GC). */
    private static final class Heartbeat {
        private final Thread thread;
        private volatile boolean paused;
        private volatile boolean stopped;

        Heartbeat(RedisModel redis, String key, String holder) {
            thread = new Thread(
                    () -> {
                        while (!stopped) {
                            if (!paused) {
                                redis.renewIfHeld(key, holder, LEASE_MS);
                            }
                            try {
                                Thread.sleep(LEASE_MS / 3); // the heartbeat period
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    },
                    "heartbeat-" + holder);
            thread.setDaemon(true);
            thread.start();
        }

        void pause() {
            paused = true;
        }

        void stop() {
            stopped = true;
            thread.interrupt();
        }
    }

    /** Each live replica tries SET NX PX in turn; the first to succeed leads. */
    private static String campaign(RedisModel redis, String key, Timeline timeline, Set<String> excluded) {
        for (String replica : replicas()) {
            if (!excluded.contains(replica) && redis.setNxPx(key, replica, LEASE_MS)) {
                timeline.info(replica, "becomes leader (lease " + LEASE_MS + " ms, renewed by heartbeats)");
                return replica;
            }
        }
        throw new IllegalStateException("nobody could take the leader lease");
    }

    private static void insertRun(DataSource ds, String table, String at, String runner, boolean completed)
            throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement p = c.prepareStatement(
                        "INSERT INTO " + table + " (slot, runner, completed)" + " VALUES (?, ?, ?)")) {
            p.setString(1, at);
            p.setString(2, runner);
            p.setBoolean(3, completed);
            p.executeUpdate();
        }
    }

    /** Completed runs per slot, for every slot of the story. */
    private static Map<String, Integer> runsBySlot(DataSource ds, String table) throws SQLException {
        Map<String, Integer> runs = new TreeMap<>();
        for (int i = 0; i < SLOTS; i++) {
            runs.put(hhmm(slot(i)), 0);
        }
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT slot, COUNT(*) FROM " + table + " WHERE completed" + " GROUP BY slot")) {
            while (rs.next()) {
                runs.put(rs.getString(1), rs.getInt(2));
            }
        }
        return runs;
    }

    // ---- with Leasehold -------------------------------------------------------------------------------------

    private RunResult withLeasehold(Env env) throws Exception {
        env.out().println("-- with Leasehold: SlotRuns (unique (job, slot), sweep with a fence, catch-up)");
        Timeline timeline = new Timeline(NAME + ": with Leasehold", env.out(), replicas());
        DataSource ds = env.dataSource(NAME + "-leasehold");
        String prefix = env.tablePrefix();
        StoreConfig config = StoreConfig.defaults().withTablePrefix(prefix);
        FencedSchema.install(ds, config);
        SlotRuns slots = new SlotRuns(ds, config);
        ExecutorService racers = Executors.newFixedThreadPool(REPLICAS);
        List<String> winnerCounts = new ArrayList<>();
        List<String> lateRejected = new ArrayList<>();
        List<Thread> slowRunners = new ArrayList<>();
        try {
            CountDownLatch slowSlotSwept = new CountDownLatch(1);
            for (int index = 0; index < SLOTS; index++) {
                Instant slot = slot(index);
                if (DEPLOY_GAP.contains(index)) {
                    timeline.problem(
                            "replica-0", "slot " + hhmm(slot) + ": deploy in progress, no replica alive", hhmm(slot));
                    Thread.sleep(SLOT_MS); // the story's minute
                    continue;
                }
                sweep(slots, timeline, slowSlotSwept);
                if (index == DEPLOY_GAP.get(DEPLOY_GAP.size() - 1) + 1) {
                    catchUp(slots, timeline, racers, winnerCounts);
                }
                List<SlotClaim> winners = race(slots, racers, slot);
                report(timeline, winnerCounts, slot, winners);
                if (winners.size() != 1) {
                    continue;
                }
                SlotClaim claim = winners.get(0);
                if (index == CRASHING_SLOT) {
                    timeline.problem(
                            claim.runner(),
                            "slot " + hhmm(slot) + ": CRASHED mid-run (fence " + claim.fence() + ")",
                            hhmm(slot));
                } else if (index == SLOW_SLOT) {
                    Thread slow = slowRunner(slots, timeline, claim, slowSlotSwept, lateRejected);
                    slowRunners.add(slow);
                } else {
                    Thread.sleep(RUN_MS); // the story's run time
                    complete(slots, timeline, claim);
                }
                Thread.sleep(SLOT_MS - RUN_MS); // the rest of the story's minute
            }
            sweep(slots, timeline, slowSlotSwept);
            for (Thread slow : slowRunners) {
                slow.join(15_000);
            }
            timeline.finish();
            List<Instant> missing = slots.missingSlots(JOB, slot(0), slot(SLOTS), MINUTE);
            long done = 0;
            for (int i = 0; i < SLOTS; i++) {
                done += slots.state(JOB, slot(i))
                                .filter(s -> s.status().equals("done"))
                                .isPresent()
                        ? 1
                        : 0;
            }
            List<String> multiple =
                    winnerCounts.stream().filter(w -> !w.endsWith(" 1")).toList();
            List<String> verdicts = List.of(
                    "slots done: " + done + " of " + SLOTS + "; slots with more than one winner: "
                            + listOrNone(multiple),
                    "late completes rejected: " + listOrNone(lateRejected),
                    "missing slots after catch-up: "
                            + listOrNone(missing.stream()
                                    .map(MinuteSlotsScenario::hhmm)
                                    .toList()));
            env.printVerdicts(verdicts);
            boolean held = done == SLOTS && multiple.isEmpty() && !lateRejected.isEmpty() && missing.isEmpty();
            return new RunResult(
                    NAME,
                    "with Leasehold",
                    false,
                    timeline,
                    verdicts,
                    held,
                    "every slot done exactly once, the slow runner's late complete rejected, no slot missing");
        } finally {
            racers.shutdownNow();
            slowRunners.forEach(Thread::interrupt);
            env.dropTables(ds, prefix);
        }
    }

    /** All ten replicas race for the slot at once; returns the winners (exactly one, by SlotRuns' contract). */
    private static List<SlotClaim> race(SlotRuns slots, ExecutorService racers, Instant slot) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Optional<SlotClaim>>> attempts = new ArrayList<>();
        for (String replica : replicas()) {
            attempts.add(racers.submit(() -> {
                Latches.await(go, 10_000, "the race starts");
                return slots.tryClaim(JOB, slot, replica, Duration.ofMillis(LEASE_MS));
            }));
        }
        go.countDown();
        List<SlotClaim> winners = new ArrayList<>();
        for (Future<Optional<SlotClaim>> attempt : attempts) {
            attempt.get(10, TimeUnit.SECONDS).ifPresent(winners::add);
        }
        return winners;
    }

    private static void report(Timeline timeline, List<String> winnerCounts, Instant slot, List<SlotClaim> winners) {
        String names = winners.stream().map(SlotClaim::runner).collect(Collectors.joining(", "));
        String line =
                "slot " + hhmm(slot) + ": " + winners.size() + " winner(s) -> " + (names.isEmpty() ? "none" : names);
        timeline.info(winners.isEmpty() ? "replica-0" : winners.get(0).runner(), line, hhmm(slot));
        winnerCounts.add(hhmm(slot) + " " + winners.size());
    }

    private static void complete(SlotRuns slots, Timeline timeline, SlotClaim claim) {
        if (slots.complete(claim, "report for " + hhmm(claim.slot()) + " by " + claim.runner())) {
            timeline.accepted(
                    claim.runner(),
                    "slot " + hhmm(claim.slot()) + ": complete with fence " + claim.fence() + " (1 row)",
                    claim.fence(),
                    hhmm(claim.slot()));
        } else {
            timeline.rejected(
                    claim.runner(),
                    "slot " + hhmm(claim.slot()) + ": complete with fence " + claim.fence()
                            + " REJECTED (0 rows): the slot was taken over",
                    claim.fence(),
                    hhmm(claim.slot()));
        }
    }

    /** The slow (not dead) runner: outlives its lease, and completes only after the sweep took its slot over. */
    private static Thread slowRunner(
            SlotRuns slots, Timeline timeline, SlotClaim claim, CountDownLatch swept, List<String> lateRejected) {
        Thread slow = new Thread(
                () -> {
                    int work = timeline.begin(claim.runner(), Timeline.SpanKind.PAUSE, "slow run (GC pause)");
                    try {
                        Thread.sleep(SLOW_RUN_MS); // the story's slow run, longer than its lease
                        Latches.await(swept, 10_000, "the sweep takes the slow runner's slot over");
                        timeline.end(work);
                        if (!slots.complete(claim, "late report by " + claim.runner())) {
                            synchronized (lateRejected) {
                                lateRejected.add(
                                        hhmm(claim.slot()) + " (" + claim.runner() + ", fence " + claim.fence() + ")");
                            }
                            timeline.rejected(
                                    claim.runner(),
                                    "slot " + hhmm(claim.slot()) + ": late complete with fence " + claim.fence()
                                            + " REJECTED (0 rows): the slot was swept",
                                    claim.fence(),
                                    hhmm(claim.slot()));
                        } else {
                            timeline.problem(claim.runner(), "slot " + hhmm(claim.slot()) + ": late complete accepted");
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "slow-" + claim.runner());
        slow.start();
        return slow;
    }

    /** The recovery sweep, run by replica-7 at the start of each minute; it runs and completes what it takes. */
    private static void sweep(SlotRuns slots, Timeline timeline, CountDownLatch slowSlotSwept) {
        List<SlotClaim> taken = slots.sweep(JOB, "replica-7", Duration.ofMillis(LEASE_MS));
        for (SlotClaim claim : taken) {
            timeline.info(
                    "replica-7",
                    "sweep: took over slot " + hhmm(claim.slot()) + " (lease expired), fence " + claim.fence(),
                    hhmm(claim.slot()));
            if (claim.slot().equals(slot(SLOW_SLOT))) {
                slowSlotSwept.countDown();
            }
            complete(slots, timeline, claim);
        }
    }

    /** After the deploy: find the slots nobody claimed, and run each once. */
    private static void catchUp(SlotRuns slots, Timeline timeline, ExecutorService racers, List<String> winnerCounts)
            throws Exception {
        List<Instant> missing =
                slots.missingSlots(JOB, slot(0), slot(DEPLOY_GAP.get(DEPLOY_GAP.size() - 1) + 1), MINUTE);
        timeline.info(
                "replica-0",
                "deploy done; catch-up scan finds missing slots: "
                        + listOrNone(
                                missing.stream().map(MinuteSlotsScenario::hhmm).toList()));
        for (Instant slot : missing) {
            List<SlotClaim> winners = race(slots, racers, slot);
            report(timeline, winnerCounts, slot, winners);
            for (SlotClaim claim : winners) {
                Thread.sleep(RUN_MS); // the story's run time
                complete(slots, timeline, claim);
            }
        }
    }

    private static String listOrNone(List<String> values) {
        return values.isEmpty() ? "none" : String.join(", ", values);
    }
}
