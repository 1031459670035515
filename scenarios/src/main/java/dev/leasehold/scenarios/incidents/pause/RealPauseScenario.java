package dev.leasehold.scenarios.incidents.pause;

import dev.leasehold.scenarios.RunResult;
import dev.leasehold.scenarios.Scenario;
import dev.leasehold.scenarios.chaos.ChildArgs;
import dev.leasehold.scenarios.cli.Env;
import dev.leasehold.scenarios.incidents.ChildProcesses;
import dev.leasehold.scenarios.incidents.Quiescence;
import dev.leasehold.scenarios.report.Skipped;
import dev.leasehold.scenarios.report.Timeline;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.testkit.ChildJvm;
import dev.leasehold.testkit.HistoryChecker;
import dev.leasehold.testkit.HistoryTable;
import dev.leasehold.testkit.SimpleDataSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * The stale-leader story with real OS processes: three child JVMs ({@link PauseChild}) elect a leader; the leader is
 * frozen with {@code kill -STOP} for longer than its session timeout (until another child leads and has written),
 * then thawed with {@code kill -CONT}; its next write carries the old token. Without the gate it lands; with the
 * gate it is rejected. The ledger is the test kit's {@link HistoryTable}, and the stale writes that landed are what
 * the campaign's checker calls rule 2 ({@link HistoryChecker#staleCommits}). Linux and macOS only; children are
 * always killed, also when the scenario fails.
 */
public final class RealPauseScenario implements Scenario {

    static final String NAME = "real-pause";
    private static final long WAIT_MS = 60_000;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String summary() {
        return "the stale leader with real processes: kill -STOP the leader longer than its session, then -CONT";
    }

    public static boolean supported() {
        return ChildJvm.signalsSupported();
    }

    @Override
    public List<RunResult> run(Env env) throws Exception {
        if (!supported()) {
            env.skip(
                    NAME,
                    Skipped.Side.BOTH,
                    "it needs kill -STOP / kill -CONT (Linux or macOS); this is " + System.getProperty("os.name"));
            return List.of();
        }
        return List.of(runWith(env, false), runWith(env, true));
    }

    /**
     * What the children said so far; one pump thread per child feeds it, the scenario waits on it. Also read by
     * {@link DbLeaseScenario}, whose children speak the same lines.
     */
    static final class Children {
        private final Timeline timeline;
        final List<String> joined = new ArrayList<>();
        final List<String> leaders = new ArrayList<>();
        final Map<String, Long> tokens = new LinkedHashMap<>();
        final Map<String, Integer> writes = new LinkedHashMap<>();
        final Map<String, String> rejections = new LinkedHashMap<>();
        final List<String> quiet = new ArrayList<>();

        Children(Timeline timeline) {
            this.timeline = timeline;
        }

        synchronized void said(String child, String text) {
            String[] parts = text.split(" ");
            switch (parts[0]) {
                case "JOINED" -> {
                    joined.add(child);
                    timeline.info(child, "joined the election (pid " + parts[1] + ")");
                }
                case "LEADER" -> {
                    leaders.add(child);
                    tokens.put(child, Long.parseLong(parts[1]));
                    timeline.info(child, "leads with token " + parts[1]);
                }
                case "FENCED" -> timeline.accepted(
                        child, "fenced first with token " + parts[1], Long.parseLong(parts[1]), "fence");
                case "WROTE" -> {
                    writes.merge(child, 1, Integer::sum);
                    timeline.accepted(
                            child,
                            "wrote #" + parts[2] + " with token " + parts[1],
                            Long.parseLong(parts[1]),
                            "#" + parts[2]);
                }
                case "REJECTED" -> {
                    rejections.put(child, "write with token " + parts[1] + " rejected (highest " + parts[2] + ")");
                    timeline.rejected(
                            child,
                            "write with token " + parts[1] + " REJECTED: stale, the highest is " + parts[2],
                            Long.parseLong(parts[1]),
                            "write");
                }
                case "LOST" -> timeline.info(
                        child,
                        "leadership lost, token " + parts[1] + " withdrawn"
                                + (parts.length > 2 ? " (" + parts[2] + ")" : ""));
                case "RETRY" -> timeline.problem(child, text.substring("RETRY ".length()));
                case "QUIET" -> quiet.add(child);
                default -> timeline.problem(child, text);
            }
            notifyAll();
        }

        synchronized int writes(String child) {
            return writes.getOrDefault(child, 0);
        }

        /** Waits until {@code condition} holds; the children's lines are the events. */
        synchronized void await(BooleanSupplier condition, String what) throws InterruptedException {
            long deadline = System.currentTimeMillis() + WAIT_MS;
            while (!condition.getAsBoolean()) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    throw new IllegalStateException("timed out after " + WAIT_MS + " ms waiting until " + what);
                }
                wait(left);
            }
        }
    }

    private RunResult runWith(Env env, boolean fenced) throws Exception {
        String title = fenced ? "with Leasehold" : "as it happened";
        env.out()
                .println("-- " + title + ": three child JVMs, the leader frozen with kill -STOP"
                        + (fenced ? ", writes through FenceGate" : ", writes without a token check"));
        String run = NAME + (fenced ? "-fenced" : "-broken");
        String url = env.jdbcUrlForChildren(run);
        DataSource ds = new SimpleDataSource(url, env.user(), env.password());
        String prefix = env.tablePrefix();
        FencedSchema.install(ds, StoreConfig.defaults().withTablePrefix(prefix));
        HistoryTable.create(ds, prefix);
        String path = "/leasehold-scenarios/" + prefix + "pause";
        Timeline timeline = new Timeline(NAME + ": " + title, env.out(), List.of("child-1", "child-2", "child-3"));
        Children children = new Children(timeline);
        ChildProcesses processes = new ChildProcesses(NAME, children::said);
        try {
            for (String child : List.of("child-1", "child-2", "child-3")) {
                processes.start(child, PauseChild.class, args(env, url, path, child, prefix, fenced));
                children.await(() -> children.joined.contains(child), child + " joins");
            }
            children.await(() -> !children.leaders.isEmpty(), "a child leads");
            String leader = children.leaders.get(0);
            long oldToken = children.tokens.get(leader);
            children.await(() -> children.writes(leader) >= 2, leader + " writes twice");

            String between = Quiescence.needed(url);
            if (between != null) {
                processes.tell(leader, "QUIESCE");
                children.await(() -> children.quiet.contains(leader), leader + " has no transaction in flight");
            }
            processes.signal("-STOP", leader);
            int pause = timeline.begin(leader, Timeline.SpanKind.PAUSE, "kill -STOP");
            timeline.problem(
                    leader,
                    "kill -STOP: the whole process is frozen (GC pause, frozen VM)"
                            + (between != null
                                    ? ", between transactions: " + between + " cannot end an idle transaction"
                                    : ", at an arbitrary moment"));
            int writesWhenFrozen = children.writes(leader);
            children.await(
                    () -> children.leaders.stream().anyMatch(c -> !c.equals(leader)),
                    "another child leads (the frozen leader's session expired on the server)");
            String next = children.leaders.stream()
                    .filter(c -> !c.equals(leader))
                    .findFirst()
                    .orElseThrow();
            children.await(() -> children.writes(next) >= 1, next + " writes");
            timeline.end(pause);
            timeline.info(leader, "kill -CONT: thawed, believing it still leads with token " + oldToken);
            processes.signal("-CONT", leader);
            if (between != null) {
                processes.tell(leader, "RESUME");
            }

            if (fenced) {
                children.await(() -> children.rejections.containsKey(leader), leader + "'s next write is refused");
            } else {
                children.await(() -> children.writes(leader) > writesWhenFrozen, leader + " writes again");
            }
            timeline.finish();
            long landed =
                    HistoryChecker.staleCommits(HistoryTable.read(ds, prefix)).size();
            String stale = fenced
                    ? children.rejections.get(leader)
                    : "its writes with token " + oldToken + " landed after " + next + "'s";
            List<String> verdicts =
                    List.of("stale leader " + leader + ": " + stale, "stale writes in the ledger: " + landed);
            env.printVerdicts(verdicts);
            boolean asExpected = fenced ? landed == 0 : landed > 0;
            return new RunResult(
                    NAME,
                    title,
                    !fenced,
                    timeline,
                    verdicts,
                    asExpected,
                    fenced
                            ? "the thawed leader's write rejected and no stale write in the ledger"
                            : "the thawed leader's stale write lands after the new leader's");
        } finally {
            processes.killAll();
            env.dropTables(ds, prefix);
        }
    }

    private static List<String> args(Env env, String url, String path, String child, String prefix, boolean fenced) {
        return ChildArgs.of(env.zkConnect(), url, prefix, child, path, "ledger", Env.SESSION_MS)
                .withCredentials(env.user(), env.password())
                .withFenced(fenced)
                .toArgs();
    }
}
