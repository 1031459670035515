package dev.leasehold.scenarios.incidents.minuteslots;

import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.CRASHING_SLOT;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.DEPLOY_GAP;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.JOB;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.LEASE_MS;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.NAME;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.RUN_MS;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.SLOTS;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.SLOT_MS;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.SLOW_RUN_MS;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.SLOW_SLOT;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.hhmm;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.listOrNone;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.replicas;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.slot;

import dev.leasehold.scenarios.Latches;
import dev.leasehold.scenarios.RunResult;
import dev.leasehold.scenarios.cli.Env;
import dev.leasehold.scenarios.incidents.RedisModel;
import dev.leasehold.scenarios.report.Timeline;
import dev.leasehold.testkit.Ddl;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;

/**
 * {@link MinuteSlotsScenario}, as it happened: a plain "am I leader?" check per replica (a lease with heartbeats, like
 * incident 1's) and a job_runs table without a unique slot. The crash loses slot 03:02, the slow runner's slot 03:03
 * runs twice, and nothing scans for the slots the deploy missed.
 *
 * <p>Thread-safety: one run on the calling thread; the slow run and the heartbeats are threads of their own.
 */
final class MinuteSlotsAsItHappened {

    private MinuteSlotsAsItHappened() {}

    static RunResult run(Env env) throws Exception {
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
}
