package dev.leasehold.scenarios.incidents.dbfailover;

import dev.leasehold.scenarios.RunResult;
import dev.leasehold.scenarios.cli.Env;
import dev.leasehold.scenarios.report.Timeline;
import dev.leasehold.store.FailoverDurability;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.testkit.PatroniCluster;
import dev.leasehold.testkit.PatroniConfig;
import dev.leasehold.testkit.PatroniMember;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import javax.sql.DataSource;

/**
 * One run of {@link DbFailoverScenario} on a Patroni cluster of its own: asynchronous ("as it happened") or
 * synchronous ("with Leasehold"). The same fault in both: replication to the standby is paused (the primary's
 * walsender stopped) just before B's advance, and the primary is killed right after it was acknowledged.
 */
final class FailoverRun {

    private static final String RESOURCE = "billing";
    private static final long OLD = 33;
    private static final long NEW = 34;
    private static final Duration WAIT = Duration.ofSeconds(90);

    private final Env env;
    private final boolean synchronous;

    FailoverRun(Env env, boolean synchronous) {
        this.env = env;
        this.synchronous = synchronous;
    }

    RunResult run() throws Exception {
        String title =
                synchronous ? "with Leasehold (synchronous replication)" : "as it happened (asynchronous replication)";
        env.out()
                .println("-- " + title + ": a Patroni cluster of two PostgreSQL 15 members, "
                        + (synchronous ? "synchronous_mode (strict), synchronous_commit = on" : "asynchronous")
                        + "; ZooKeeper at " + env.zkConnect() + " as its DCS");
        Path dir = Files.createTempDirectory("leasehold-db-failover-");
        try (PatroniCluster cluster = PatroniCluster.start(new PatroniConfig(env.zkConnect(), 2, synchronous, dir))) {
            return story(cluster, title);
        } finally {
            deleteQuietly(dir);
        }
    }

    private RunResult story(PatroniCluster cluster, String title) throws Exception {
        Timeline timeline = new Timeline(DbFailoverScenario.NAME + ": " + title, env.out(), List.of("A", "B", "db"));
        DataSource ds = cluster.dataSource();
        StoreConfig config = StoreConfig.defaults().withTablePrefix(env.tablePrefix());
        FencedSchema.install(ds, config);
        String ledger = config.tablePrefix() + "ledger";
        execute(ds, "CREATE TABLE " + ledger + " (id SERIAL PRIMARY KEY, writer TEXT NOT NULL, token BIGINT NOT NULL)");
        FailoverDurability durability = FencedSchema.durability(ds, config);
        timeline.info(
                "db",
                "the store's durability check: " + durability.replication() + " (" + durability.reason() + ")",
                durability.atRisk()
                        ? "check: at risk"
                        : "check: " + durability.replication().name().toLowerCase());
        FenceGate gateA = new FenceGate(ds, config);
        FenceGate gateB = new FenceGate(ds, config);

        gateA.advance(RESOURCE, OLD, "A");
        int leadsA = timeline.begin("A", Timeline.SpanKind.LEADERSHIP, "token " + OLD);
        write(gateA, ledger, "A", OLD);
        timeline.accepted("A", "leads with token " + OLD + " and writes", OLD);
        awaitStandbyMark(cluster, config, OLD);
        timeline.end(leadsA);
        int pauseA = timeline.begin("A", Timeline.SpanKind.PAUSE, "paused");
        timeline.problem("A", "paused (a GC pause, a frozen VM), still believing it leads with token " + OLD);

        int stopped = cluster.pauseReplication();
        timeline.problem(
                "db",
                "replication paused on purpose: the primary's walsender" + (stopped == 1 ? "" : "s")
                        + " stopped (SIGSTOP), the standby receives nothing",
                "replication paused");
        if (synchronous) {
            CompletableFuture<Void> advance = CompletableFuture.runAsync(() -> gateB.advance(RESOURCE, NEW, "B"));
            awaitSyncRepWait(cluster);
            timeline.info(
                    "B",
                    "advance to " + NEW + " sent: it waits (SyncRep), not acknowledged while no standby" + " has it");
            cluster.resumeReplication();
            timeline.info("db", "replication resumed", "replication resumed");
            advance.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            timeline.info("B", "takes over with token " + NEW + ": advance acknowledged (the standby has it)", "34");
        } else {
            gateB.advance(RESOURCE, NEW, "B");
            timeline.info(
                    "B",
                    "takes over with token " + NEW + ": advance acknowledged by the primary (the standby lacks it)",
                    "34");
        }
        timeline.begin("B", Timeline.SpanKind.LEADERSHIP, "token " + NEW);
        long before = gateB.highestToken(RESOURCE).orElse(-1);

        PatroniMember killed = cluster.killPrimary();
        timeline.problem(
                "db",
                "primary " + killed.name() + " killed (SIGKILL of the postmaster and its children)",
                "primary killed");
        int failover = timeline.begin("db", Timeline.SpanKind.PAUSE, "failover");
        PatroniMember promoted = cluster.awaitNewPrimary(killed, WAIT);
        timeline.end(failover);
        timeline.info("db", "Patroni promoted " + promoted.name() + " (failover)", "failover: " + promoted.name());
        long after = new FenceGate(cluster.dataSource(promoted), config)
                .highestToken(RESOURCE)
                .orElse(-1);

        timeline.end(pauseA);
        timeline.info("A", "wakes and writes with token " + OLD + " (a fresh connection: the primary of the moment)");
        LateWrite late = LateWrite.attempt(() -> write(gateA, ledger, "A", OLD), OLD, promoted.name(), timeline);
        boolean stale = late.accepted();
        String outcome = "A's write with token " + OLD
                + (late.accepted()
                        ? " accepted"
                        : late.refusedByFence()
                                ? " refused by the fence on the promoted standby (StaleTokenException, highest "
                                        + late.highest() + ")"
                                : " refused by the database, never by the fence: " + late.databaseErrors());
        if (late.refusedByFence() && !late.databaseErrors().isEmpty()) {
            outcome += " after " + late.databaseErrors().size() + " database error"
                    + (late.databaseErrors().size() == 1 ? "" : "s") + " " + late.databaseErrors();
        }
        timeline.finish();

        String marks = "B had advanced to " + NEW + "; the mark was " + before + " before the failover and " + after
                + " after it";
        List<String> verdicts = new ArrayList<>();
        verdicts.add((stale ? "stale write accepted after failover: " : "no stale write after failover: ") + outcome
                + "; " + marks);
        verdicts.add("the store's durability check said: " + durability.replication()
                + (durability.atRisk() ? " (at risk: it warns at the gate's first write)" : ""));
        env.printVerdicts(verdicts);
        boolean asExpected = synchronous
                ? late.refusedByFence() && after == NEW && !durability.atRisk()
                : stale && after == OLD && before == NEW && durability.atRisk();
        return new RunResult(
                DbFailoverScenario.NAME,
                title,
                !synchronous,
                timeline,
                verdicts,
                asExpected,
                synchronous
                        ? "the promoted standby keeps " + NEW + " and A's write is refused; the check does not warn"
                        : "the promoted standby lacks " + NEW + " and A's write passes; the check warns");
    }

    private static void write(FenceGate gate, String ledger, String writer, long token) {
        gate.write(RESOURCE, token, tx -> {
            try (PreparedStatement insert =
                    tx.prepareStatement("INSERT INTO " + ledger + " (writer, token) VALUES (?, ?)")) {
                insert.setString(1, writer);
                insert.setLong(2, token);
                insert.executeUpdate();
            }
        });
    }

    /** Polls the standby until it replayed the mark (replication is asynchronous in one of the runs). */
    private static void awaitStandbyMark(PatroniCluster cluster, StoreConfig config, long token) {
        PatroniMember primary = cluster.primary().orElseThrow(() -> new IllegalStateException("no primary"));
        long deadline = System.nanoTime() + WAIT.toNanos();
        for (PatroniMember member : cluster.members()) {
            if (member.equals(primary)) {
                continue;
            }
            FenceGate standby = new FenceGate(cluster.dataSource(member), config);
            while (!mark(standby).equals(OptionalLong.of(token))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the standby " + member.name() + " did not replay " + token);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // polling the standby's replay
            }
        }
    }

    private static OptionalLong mark(FenceGate gate) {
        try {
            return gate.highestToken(RESOURCE);
        } catch (RuntimeException notYet) {
            return OptionalLong.empty(); // the table may not have been replayed yet, or the standby restarts
        }
    }

    /** Polls the primary until a backend waits for a synchronous standby to confirm its commit. */
    private static void awaitSyncRepWait(PatroniCluster cluster) throws SQLException {
        PatroniMember primary = cluster.primary().orElseThrow(() -> new IllegalStateException("no primary"));
        long deadline = System.nanoTime() + WAIT.toNanos();
        try (Connection c = cluster.dataSource(primary).getConnection();
                Statement s = c.createStatement()) {
            while (System.nanoTime() < deadline) {
                try (ResultSet r =
                        s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'")) {
                    if (r.next() && r.getLong(1) > 0) {
                        return;
                    }
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // polling the primary's activity
            }
        }
        throw new IllegalStateException("B's advance never waited for a synchronous standby");
    }

    private static void execute(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temporary directory: left behind if it cannot be read
        }
    }
}
