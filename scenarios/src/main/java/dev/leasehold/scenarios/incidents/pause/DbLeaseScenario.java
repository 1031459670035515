package dev.leasehold.scenarios.incidents.pause;

import dev.leasehold.scenarios.RunResult;
import dev.leasehold.scenarios.Scenario;
import dev.leasehold.scenarios.chaos.ChildArgs;
import dev.leasehold.scenarios.cli.Env;
import dev.leasehold.scenarios.incidents.ChildProcesses;
import dev.leasehold.scenarios.report.Skipped;
import dev.leasehold.scenarios.report.Timeline;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.testkit.HistoryChecker;
import dev.leasehold.testkit.HistoryTable;
import dev.leasehold.testkit.LockedPostgres;
import dev.leasehold.testkit.NotRoot;
import dev.leasehold.testkit.PatientPostgres;
import dev.leasehold.testkit.SimpleDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.util.List;
import javax.sql.DataSource;

/**
 * The seeds' billing run without ZooKeeper (incident 2): leader election on the database the work already uses.
 *
 * <ul>
 *   <li>As it happened: the seeds' other database mechanism, {@code pg_try_advisory_lock} behind a pooler in
 *       transaction mode ({@link AdvisoryLockRun}): each transaction gets another server connection, the session
 *       lock belongs to a server connection and not to a client, and two clients lead at once.</li>
 *   <li>With Leasehold: two child JVMs ({@link LeaseChild}) elect with a {@code LeaseElection} (the seeds' lease 15 s
 *       / renew 5 s, scaled to 3 s / 1 s, retry 200 ms); the leader is frozen with a real {@code kill -STOP} past its
 *       lease; the other takes over with a higher token and writes; the thawed leader's next write, with its old
 *       token, is refused by the gate.</li>
 * </ul>
 * Linux and macOS only (signals); children are always killed, also when the scenario fails.
 */
public final class DbLeaseScenario implements Scenario {

    static final String NAME = "db-lease";
    /** The seeds' 15 s lease, scaled down; renew deadline and retry period follow from it ({@link LeaseChild}). */
    static final int LEASE_MS = 3_000;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String summary() {
        return "election on the database: advisory locks behind transaction pooling lead twice; a lease with a"
                + " generation fences a kill -STOPped leader";
    }

    @Override
    public List<RunResult> run(Env env) throws Exception {
        if (!RealPauseScenario.supported()) {
            env.skip(NAME, Skipped.Side.BOTH, "it needs kill -STOP / kill -CONT (Linux or macOS)");
            return List.of();
        }
        RunResult broken = broken(env);
        RunResult fenced = fenced(env);
        return broken == null ? List.of(fenced) : List.of(broken, fenced);
    }

    /** The advisory-lock election, on a real PgBouncer if given, else on PostgreSQL behind the stand-in. */
    private RunResult broken(Env env) throws Exception {
        String bouncer = System.getenv("LEASEHOLD_TEST_PGBOUNCER_URL");
        if (bouncer != null && !bouncer.isBlank()) {
            return new AdvisoryLockRun(env, "a real PgBouncer in transaction mode (LEASEHOLD_TEST_PGBOUNCER_URL)")
                    .run(new SimpleDataSource(bouncer, null, null));
        }
        String url = env.jdbcUrlForChildren(NAME + "-advisory");
        if (url.startsWith("jdbc:postgresql:")) {
            try (TransactionPooling pooler = new TransactionPooling(env.dataSource(NAME + "-advisory"), 2)) {
                return new AdvisoryLockRun(env, standIn()).run(pooler);
            }
        }
        if (NotRoot.isRoot()) {
            env.skip(
                    NAME,
                    Skipped.Side.AS_IT_HAPPENED,
                    "pg_try_advisory_lock needs PostgreSQL; embedded PostgreSQL refuses to run as root (give --jdbc"
                            + " jdbc:postgresql:..., or run as an unprivileged user)");
            return null;
        }
        try (EmbeddedPostgres postgres = LockedPostgres.start(PatientPostgres.builder(), LockedPostgres.newPassword());
                TransactionPooling pooler = new TransactionPooling(postgres.getPostgresDatabase(), 2)) {
            return new AdvisoryLockRun(env, standIn() + " on an embedded PostgreSQL 17").run(pooler);
        }
    }

    private static String standIn() {
        return "PgBouncer's transaction pooling reproduced in-process (2 server connections, each transaction on"
                + " the next one; LEASEHOLD_TEST_PGBOUNCER_URL not set)";
    }

    private RunResult fenced(Env env) throws Exception {
        String title = "with Leasehold";
        env.out()
                .println("-- " + title + ": two child JVMs elect with a lease row (lease " + LEASE_MS
                        + " ms), the leader frozen with kill -STOP");
        String url = env.jdbcUrlForChildren(NAME);
        DataSource ds = new SimpleDataSource(url, env.user(), env.password());
        String prefix = env.tablePrefix();
        FencedSchema.install(ds, StoreConfig.defaults().withTablePrefix(prefix));
        HistoryTable.create(ds, prefix);
        Timeline timeline = new Timeline(NAME + ": " + title, env.out(), List.of("A", "B"));
        RealPauseScenario.Children children = new RealPauseScenario.Children(timeline);
        ChildProcesses processes = new ChildProcesses(NAME, children::said);
        try {
            for (String child : List.of("A", "B")) {
                processes.start(
                        child,
                        LeaseChild.class,
                        ChildArgs.of("none", url, prefix, child, "/" + prefix + "billing", "ledger", LEASE_MS)
                                .withCredentials(env.user(), env.password())
                                .withFenced(true)
                                .toArgs());
                children.await(() -> children.joined.contains(child), child + " joins");
                if (child.equals("A")) {
                    children.await(() -> children.leaders.contains("A"), "A leads");
                }
            }
            long oldToken = children.tokens.get("A");
            children.await(() -> children.writes("A") >= 2, "A writes twice");

            processes.signal("-STOP", "A");
            int pause = timeline.begin("A", Timeline.SpanKind.PAUSE, "kill -STOP");
            timeline.problem(
                    "A", "kill -STOP: the whole process is frozen, its renewals too (a GC pause, a frozen VM)");
            children.await(() -> children.leaders.contains("B"), "B leads (A's lease expired by the database's clock)");
            long newToken = children.tokens.get("B");
            children.await(() -> children.writes("B") >= 1, "B writes");
            timeline.end(pause);
            timeline.info("A", "kill -CONT: thawed, its writer still believing it leads with token " + oldToken);
            processes.signal("-CONT", "A");
            children.await(() -> children.rejections.containsKey("A"), "A's next write is refused");
            timeline.finish();

            long landed =
                    HistoryChecker.staleCommits(HistoryTable.read(ds, prefix)).size();
            List<String> verdicts = List.of(
                    "A led with token " + oldToken + "; B took over with token " + newToken,
                    "stale leader A: " + children.rejections.get("A"),
                    "stale writes in the ledger: " + landed);
            env.printVerdicts(verdicts);
            return new RunResult(
                    NAME,
                    title,
                    false,
                    timeline,
                    verdicts,
                    newToken > oldToken && landed == 0,
                    "B's token above A's, A's late write refused, no stale write in the ledger");
        } finally {
            processes.killAll();
            env.dropTables(ds, prefix);
        }
    }
}
