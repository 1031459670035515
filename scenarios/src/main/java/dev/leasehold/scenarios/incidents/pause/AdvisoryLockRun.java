package dev.leasehold.scenarios.incidents.pause;

import dev.leasehold.scenarios.RunResult;
import dev.leasehold.scenarios.cli.Env;
import dev.leasehold.scenarios.report.Timeline;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The broken run of {@code db-lease}: leader election with PostgreSQL's session advisory lock, as the seeds describe
 * it, behind a pooler in transaction mode. Two participants, A then B, each keep one client connection and try
 * {@code SELECT pg_try_advisory_lock(42)} every 70 ms until it says {@code true}; then they lead and write to the
 * ledger every 100 ms (no token: an advisory lock has none). The two periods differ on purpose: with equal ones, the
 * stand-in pooler's round robin over two server connections can keep B's tries and A's writes in lockstep, every try
 * of B's on the server connection A did not lock from (it happened in CI), which no real pooler promises either. A session lock belongs to the server connection that ran
 * the statement, and in transaction mode that is not the client's: B's try lands on the server connection A locked
 * from, the lock is re-entrant there, and B leads too. The run ends when both lead and both have written since.
 */
final class AdvisoryLockRun {

    private static final long KEY = 42;
    private static final long WAIT_MS = 30_000;
    /** A follower's retry period, not the leader's write period (100 ms): see the class comment. */
    private static final long RETRY_MS = 70;

    private final Env env;
    private final String pooler;

    /** @param pooler which pooler the run goes through, said in the output */
    AdvisoryLockRun(Env env, String pooler) {
        this.env = env;
        this.pooler = pooler;
    }

    RunResult run(DataSource pooled) throws Exception {
        String title = "as it happened";
        env.out().println("-- " + title + ": pg_try_advisory_lock(" + KEY + ") through " + pooler);
        Timeline timeline = new Timeline(DbLeaseScenario.NAME + ": " + title, env.out(), List.of("A", "B"));
        Map<String, Integer> writes = new ConcurrentHashMap<>();
        CountDownLatch bothWrote = new CountDownLatch(2);
        CountDownLatch aLeads = new CountDownLatch(1);
        CountDownLatch stop = new CountDownLatch(1);
        unlockAll(pooled); // a run before this one (a test, a crashed run) may have left the key held
        try (Connection a = pooled.getConnection();
                Connection b = pooled.getConnection()) {
            Thread threadA = participant("A", a, timeline, writes, aLeads, bothWrote, stop);
            threadA.start();
            boolean aLed = aLeads.await(WAIT_MS, TimeUnit.MILLISECONDS);
            Thread threadB = participant("B", b, timeline, writes, new CountDownLatch(1), bothWrote, stop);
            threadB.start();
            boolean twoLeaders = aLed && bothWrote.await(WAIT_MS, TimeUnit.MILLISECONDS);
            stop.countDown();
            threadA.join(5_000);
            threadB.join(5_000);
            timeline.finish();
            List<String> verdicts = List.of(
                    "the pooler: " + pooler,
                    twoLeaders
                            ? "two leaders at once: A and B both got pg_try_advisory_lock(" + KEY + ") = true and both"
                                    + " wrote (A " + writes.get("A") + ", B " + writes.get("B") + " writes)"
                            : "two leaders at once: no (A led: " + aLed + ", writes " + writes + ")");
            env.printVerdicts(verdicts);
            return new RunResult(
                    DbLeaseScenario.NAME,
                    title,
                    true,
                    timeline,
                    verdicts,
                    twoLeaders,
                    "two participants leading at once through the pooler");
        } finally {
            unlockAll(pooled);
        }
    }

    private static Thread participant(
            String who,
            Connection connection,
            Timeline timeline,
            Map<String, Integer> writes,
            CountDownLatch leads,
            CountDownLatch wrote,
            CountDownLatch stop) {
        Thread thread = new Thread(
                () -> {
                    try {
                        while (!tryLock(connection)) {
                            timeline.info(who, "pg_try_advisory_lock(" + KEY + ") = false: follows");
                            if (stop.await(RETRY_MS, TimeUnit.MILLISECONDS)) {
                                return;
                            }
                        }
                        timeline.problem(who, "pg_try_advisory_lock(" + KEY + ") = true: leads (no token)");
                        leads.countDown();
                        for (int seq = 1; !stop.await(100, TimeUnit.MILLISECONDS); seq++) {
                            write(connection, who, seq);
                            if (writes.merge(who, 1, Integer::sum) == 1) {
                                wrote.countDown();
                            }
                            timeline.info(who, "wrote #" + seq + " to the ledger as leader");
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (SQLException e) {
                        timeline.problem(who, "failed: " + e.getMessage());
                    }
                },
                "advisory-" + who);
        thread.setDaemon(true);
        return thread;
    }

    private static boolean tryLock(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_try_advisory_lock(" + KEY + ")")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    /** A write of the leader's work: nothing to fence it with, so it only counts what the leader did. */
    private static void write(Connection connection, String who, int seq) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT '" + who + "', " + seq)) {
            rs.next();
        }
    }

    /**
     * Session locks outlive the clients behind a pooler, on server connections a client cannot choose: ends every
     * other server session that holds the key (the pooler drops those connections), then unlocks this one's.
     */
    private static void unlockAll(DataSource pooled) {
        try (Connection c = pooled.getConnection();
                Statement s = c.createStatement()) {
            s.execute("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND classid = 0"
                    + " AND objid = " + KEY + " AND objsubid = 1 AND pid <> pg_backend_pid()");
            s.execute("SELECT pg_advisory_unlock_all()");
        } catch (SQLException ignored) {
            // best effort: the pooler or the server is going away
        }
    }
}
