package dev.leasehold.scenarios.incidents.partitions;

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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * Billing split into 12 customer partitions over 3 instances (child JVMs, {@link PartitionChild}); one instance is
 * frozen with {@code kill -STOP} past its session, its partitions move to the other two, and it is thawed with {@code
 * kill -CONT} while its billing workers still believe they own their partitions.
 *
 * <p>As it happened: ownership from a plain rendezvous hash of the member list, no tokens: the thawed instance charges
 * periods the new owners already charged: customers charged twice. With Leasehold: {@code FencedPartitions}, one
 * {@code FenceGate} resource per partition: each late charge is refused, partition by partition, and no customer is
 * charged twice.
 */
public final class PartitionedBillingScenario implements Scenario {

    static final String NAME = "partitioned-billing";
    static final int PARTITIONS = 12;
    private static final long WAIT_MS = 90_000;
    private static final List<String> INSTANCES = List.of("inst-1", "inst-2", "inst-3");

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String summary() {
        return "12 customer partitions over 3 instances; one frozen past its session, then thawed: charged twice?";
    }

    static String resource(String prefix, int partition) {
        return prefix + "-" + partition;
    }

    @Override
    public List<RunResult> run(Env env) throws Exception {
        if (!ChildJvm.signalsSupported()) {
            env.skip(NAME, Skipped.Side.BOTH, "it needs kill -STOP / kill -CONT (Linux or macOS)");
            return List.of();
        }
        return List.of(runWith(env, false), runWith(env, true));
    }

    /** What the instances said so far; one pump thread per child feeds it, the scenario waits on it. */
    private static final class Instances {
        private final Timeline timeline;
        private final Set<String> joined = new TreeSet<>();
        /** partition -> the instance that said it acquired it last (and has not said it lost it) */
        private final Map<Integer, String> owner = new TreeMap<>();
        /** (instance, partition) -> charges */
        private final Map<String, Integer> charges = new HashMap<>();

        private final Map<Integer, String> rejected = new TreeMap<>();
        /** the instances that said they are quiet (no database transaction in flight, new ones held back) */
        private final Set<String> quiet = new TreeSet<>();

        Instances(Timeline timeline) {
            this.timeline = timeline;
        }

        synchronized void said(String who, String text) {
            String[] parts = text.split(" ");
            switch (parts[0]) {
                case "JOINED" -> {
                    joined.add(who);
                    timeline.info(who, "joined (pid " + parts[1] + ")");
                }
                case "ACQUIRED" -> {
                    owner.put(Integer.parseInt(parts[1]), who);
                    timeline.info(who, "owns partition " + parts[1] + tokenText(parts[2]));
                }
                case "LOST" -> {
                    owner.remove(Integer.parseInt(parts[1]), who);
                    timeline.info(who, "lost partition " + parts[1] + " (" + parts[3] + ")");
                }
                case "CHARGED" -> {
                    charges.merge(who + "/" + parts[1], 1, Integer::sum);
                    if (Long.parseLong(parts[2]) > 0) {
                        timeline.accepted(
                                who,
                                "charged partition " + parts[1] + ", period " + parts[3],
                                Long.parseLong(parts[2]),
                                "p" + parts[1]);
                    } else {
                        timeline.info(who, "charged partition " + parts[1] + ", period " + parts[3]);
                    }
                }
                case "REJECTED" -> {
                    rejected.put(Integer.parseInt(parts[1]), who);
                    timeline.rejected(
                            who,
                            "charge of partition " + parts[1] + " with token " + parts[2] + " REFUSED: the highest is "
                                    + parts[3],
                            Long.parseLong(parts[2]),
                            "p" + parts[1]);
                }
                case "QUIET" -> quiet.add(who);
                case "RETRY" -> timeline.problem(who, text.substring(text.indexOf(' ', 6) + 1));
                default -> timeline.problem(who, text);
            }
            notifyAll();
        }

        private static String tokenText(String token) {
            return token.equals("0") ? " (rendezvous hash, no token)" : " with token " + token;
        }

        synchronized int charges(String who, int partition) {
            return charges.getOrDefault(who + "/" + partition, 0);
        }

        synchronized List<Integer> ownedBy(String who) {
            return owner.entrySet().stream()
                    .filter(e -> e.getValue().equals(who))
                    .map(Map.Entry::getKey)
                    .toList();
        }

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
                .println("-- " + title + ": 3 instances, 12 customer partitions, one frozen with kill -STOP"
                        + (fenced
                                ? "; FencedPartitions, one FenceGate resource per partition"
                                : "; a rendezvous hash of the member list, no tokens"));
        String run = NAME + (fenced ? "-fenced" : "-broken");
        String url = env.jdbcUrlForChildren(run);
        DataSource ds = new SimpleDataSource(url, env.user(), env.password());
        String prefix = env.tablePrefix();
        FencedSchema.install(ds, StoreConfig.defaults().withTablePrefix(prefix));
        HistoryTable.create(ds, prefix);
        String path = "/leasehold-scenarios/" + prefix + "billing-partitions";
        Timeline timeline = new Timeline(NAME + ": " + title, env.out(), INSTANCES);
        Instances instances = new Instances(timeline);
        ChildProcesses processes = new ChildProcesses(NAME, instances::said);
        try {
            for (String who : INSTANCES) {
                processes.start(
                        who,
                        PartitionChild.class,
                        ChildArgs.of(env.zkConnect(), url, prefix, who, path, "customers", Env.SESSION_MS)
                                .withCredentials(env.user(), env.password())
                                .withFenced(fenced)
                                .toArgs());
                instances.await(() -> instances.joined.contains(who), who + " joins");
            }
            String frozen = INSTANCES.get(0);
            instances.await(
                    () -> INSTANCES.stream().allMatch(i -> !instances.ownedBy(i).isEmpty())
                            && instances.ownedBy(frozen).stream().allMatch(p -> instances.charges(frozen, p) >= 1),
                    "every instance owns partitions and " + frozen + " has charged each of its partitions");
            List<Integer> moving = instances.ownedBy(frozen);

            String between = Quiescence.needed(url);
            if (between != null) {
                processes.tell(frozen, "QUIESCE");
                instances.await(() -> instances.quiet.contains(frozen), frozen + " has no transaction in flight");
            }
            processes.signal("-STOP", frozen);
            int pause = timeline.begin(frozen, Timeline.SpanKind.PAUSE, "kill -STOP");
            timeline.problem(
                    frozen,
                    "kill -STOP: frozen "
                            + (between != null
                                    ? "between transactions: " + between + " cannot end an idle transaction"
                                    : "at an arbitrary moment")
                            + ", while owning partitions " + moving);
            Map<Integer, String> newOwners = new TreeMap<>();
            instances.await(
                    () -> moving.stream().allMatch(p -> {
                        String now = instances.owner.get(p);
                        return now != null && !now.equals(frozen) && instances.charges(now, p) >= 2;
                    }),
                    "the other instances own and bill " + frozen + "'s partitions");
            moving.forEach(p -> newOwners.put(p, instances.owner.get(p)));
            timeline.end(pause);
            timeline.info(frozen, "kill -CONT: thawed; its billing workers still believe they own " + moving);
            processes.signal("-CONT", frozen);
            if (between != null) {
                processes.tell(frozen, "RESUME");
            }
            if (fenced) {
                instances.await(
                        () -> instances.rejected.keySet().containsAll(moving),
                        frozen + "'s late charges are refused, partition by partition");
            } else {
                int[] before = moving.stream()
                        .mapToInt(p -> instances.charges(frozen, p))
                        .toArray();
                instances.await(
                        () -> {
                            for (int i = 0; i < moving.size(); i++) {
                                if (instances.charges(frozen, moving.get(i)) <= before[i]) {
                                    return false;
                                }
                            }
                            return true;
                        },
                        frozen + " charges its old partitions again");
            }
            timeline.finish();
            List<HistoryChecker.Committed> rows = HistoryTable.read(ds, prefix);
            Map<String, Integer> perPeriod = new TreeMap<>();
            rows.forEach(r -> perPeriod.merge(r.resource() + " period " + r.seq(), 1, Integer::sum));
            List<String> twice = perPeriod.entrySet().stream()
                    .filter(e -> e.getValue() > 1)
                    .map(Map.Entry::getKey)
                    .toList();
            long stale = HistoryChecker.staleCommits(rows).size();
            List<String> verdicts = new ArrayList<>();
            verdicts.add(frozen + "'s partitions " + moving + " moved to " + newOwners);
            if (fenced) {
                verdicts.add("late charges refused, partition by partition: " + instances.rejected.keySet());
            }
            verdicts.add(
                    "customer periods charged twice: " + twice.size() + (twice.isEmpty() ? "" : " " + first(twice)));
            verdicts.add("stale writes in the ledger: " + stale);
            env.printVerdicts(verdicts);
            boolean asExpected = fenced ? twice.isEmpty() && stale == 0 : !twice.isEmpty();
            return new RunResult(
                    NAME,
                    title,
                    !fenced,
                    timeline,
                    verdicts,
                    asExpected,
                    fenced
                            ? "every late charge refused and no customer charged twice"
                            : "the thawed instance charges customers the new owners already charged");
        } finally {
            processes.killAll();
            env.dropTables(ds, prefix);
        }
    }

    /**
     * The database behind {@code url} if the store cannot bound an idle transaction there (only PostgreSQL's
     * {@code idle_in_transaction_session_timeout} can): an instance frozen inside a gate transaction would hold the
     * mark's lock until thawed, and the new owners' advance would wait for it in vain. There the scenario stops the
     * instance between transactions; else at an arbitrary moment, the realistic case.
     */
    private static String first(List<String> items) {
        return items.size() <= 3 ? items.toString() : items.subList(0, 3) + " ...";
    }
}
