package dev.leasehold.scenarios.incidents.billing;

import dev.leasehold.scenarios.RunResult;
import dev.leasehold.scenarios.Scenario;
import dev.leasehold.scenarios.cli.Env;
import dev.leasehold.scenarios.report.Timeline;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Incident 2, the billing run charged three times. Three schedulers A, B, C can each start the nightly billing run;
 * four designs are replayed: uncoordinated, pinned to A, a leader lease without a token check, and fenced.
 *
 * <p>The pause is real from ZooKeeper's side: A's connection goes through an in-process TCP proxy that the scenario
 * silences, so the server expires A's session; A's billing worker is held at the point between its "am I leader?"
 * check and its next write. In this in-process replay A's ZooKeeper client keeps running and notices the loss; the
 * frozen worker does not, as in a real GC pause.
 *
 * <p>Why one file of more than 300 lines: one story in four runs told in order, as the timeline shows it.
 */
public final class StaleLeaderScenario implements Scenario {

    static final String NAME = "stale-leader";
    private static final List<String> CUSTOMERS = Charges.CUSTOMERS;
    private static final String RESOURCE = Charges.RESOURCE;
    private static final int CHARGED_BEFORE_PAUSE = 3;
    private static final long CHARGE_MS = 60;
    private static final long WAIT_MS = 30_000;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String summary() {
        return "incident 2: the billing run charged 3 times; uncoordinated, pinned, lease-only and fenced";
    }

    @Override
    public List<RunResult> run(Env env) throws Exception {
        return List.of(uncoordinated(env), pinned(env), elected(env, false), elected(env, true));
    }

    // ---- uncoordinated and pinned ---------------------------------------------------------------------------

    private RunResult uncoordinated(Env env) throws Exception {
        env.out().println("-- uncoordinated: each of A, B, C starts the nightly billing run");
        Timeline timeline = new Timeline(NAME + ": uncoordinated", env.out(), List.of("A", "B", "C"));
        DataSource ds = env.dataSource(NAME + "-uncoordinated");
        String prefix = env.tablePrefix();
        Charges charges = Charges.create(ds, prefix, false);
        List<Thread> runs = new ArrayList<>();
        try {
            for (String instance : List.of("A", "B", "C")) {
                Thread run = new Thread(() -> {
                    int span = timeline.begin(instance, Timeline.SpanKind.WORK, "billing run");
                    try {
                        for (String customer : CUSTOMERS) {
                            Thread.sleep(CHARGE_MS); // the story's time to charge one customer
                            charges.insert(customer, instance, null);
                            timeline.info(instance, "charged " + customer, customer);
                        }
                    } catch (InterruptedException | SQLException e) {
                        timeline.problem(instance, "billing run failed: " + e);
                    }
                    timeline.end(span);
                });
                runs.add(run);
                run.start();
            }
            for (Thread run : runs) {
                run.join(WAIT_MS);
            }
            timeline.finish();
            Map<String, Integer> counts = charges.countByCustomer();
            List<String> verdicts = List.of("customers charged 3 times: " + Charges.customersWith(counts, 3));
            env.printVerdicts(verdicts);
            return new RunResult(
                    NAME,
                    "uncoordinated",
                    true,
                    timeline,
                    verdicts,
                    counts.values().stream().allMatch(n -> n == 3),
                    "every customer charged 3 times");
        } finally {
            env.dropTables(ds, prefix);
        }
    }

    private RunResult pinned(Env env) throws Exception {
        env.out().println("-- pinned: only A may start the billing run; A dies before it");
        Timeline timeline = new Timeline(NAME + ": pinned", env.out(), List.of("A", "B", "C"));
        DataSource ds = env.dataSource(NAME + "-pinned");
        String prefix = env.tablePrefix();
        Charges charges = Charges.create(ds, prefix, false);
        try {
            timeline.problem("A", "crashed at 01:59, one minute before the nightly billing run");
            timeline.info("B", "not configured to run billing: idle");
            timeline.info("C", "not configured to run billing: idle");
            timeline.finish();
            Map<String, Integer> counts = charges.countByCustomer();
            String charged = counts.values().stream().allMatch(n -> n == 0) ? "none" : Charges.customersWith(counts, 1);
            List<String> verdicts = List.of("customers charged: " + charged);
            env.printVerdicts(verdicts);
            return new RunResult(
                    NAME, "pinned", true, timeline, verdicts, charged.equals("none"), "no customer charged at all");
        } finally {
            env.dropTables(ds, prefix);
        }
    }

    // ---- elected: lease-only and fenced (the election itself is BillingElection's) ----------------------

    /** The billing run of one design. */
    private final class Billing {
        final boolean fenced;
        final Charges charges;
        final FenceGate gate;
        final Timeline timeline;
        final List<String> rejections = new ArrayList<>();

        Billing(boolean fenced, Charges charges, FenceGate gate, Timeline timeline) {
            this.fenced = fenced;
            this.charges = charges;
            this.gate = gate;
            this.timeline = timeline;
        }

        void run(BillingElection.Leader leader) throws Exception {
            String me = leader.name;
            long token = leader.token;
            if (fenced) {
                leader.fenceFirst(gate, RESOURCE);
            }
            Set<String> done = charges.charged();
            if (!done.isEmpty()) {
                timeline.info(me, "resumes the run: already charged " + String.join(", ", done));
            }
            leader.forEachCustomer(
                    CUSTOMERS, done, CHARGED_BEFORE_PAUSE, customer -> "charges " + customer, CHARGE_MS, customer -> {
                        if (charge(me, customer, token)) {
                            return true;
                        }
                        timeline.info(me, "its write was rejected: drops back to follower");
                        return false;
                    });
        }

        /** Returns false if the write was refused as stale. */
        private boolean charge(String me, String customer, long token) throws SQLException {
            if (!fenced) {
                boolean again = charges.charged().contains(customer);
                charges.insert(customer, me, null);
                if (again) {
                    timeline.problem(
                            me, "charged " + customer + " AGAIN (writes carry no token, nothing checks)", customer);
                } else {
                    timeline.info(me, "charged " + customer, customer);
                }
                return true;
            }
            return charges.chargeFenced(gate, timeline, rejections, me, customer, token);
        }
    }

    private RunResult elected(Env env, boolean fenced) throws Exception {
        String mode = fenced ? "fenced" : "lease-only";
        env.out()
                .println("-- " + mode + ": A, B, C elect a leader with FencedLeaderLatch; "
                        + (fenced
                                ? "every charge goes through FenceGate, keyed by customer + period"
                                : "charges are written without the token"));
        Timeline timeline = new Timeline(NAME + ": " + mode, env.out(), List.of("A", "B", "C"));
        DataSource ds = env.dataSource(NAME + "-" + mode);
        String prefix = env.tablePrefix();
        StoreConfig config = StoreConfig.defaults().withTablePrefix(prefix);
        FencedSchema.install(ds, config);
        Charges charges = Charges.create(ds, prefix, fenced);
        Billing billing = new Billing(fenced, charges, new FenceGate(ds, config), timeline);
        String path = "/leasehold-scenarios/" + prefix + "billing";
        try (BillingElection election = new BillingElection(env, timeline, path, billing::run)) {
            election.run();
            timeline.finish();

            Map<String, Integer> counts = charges.countByCustomer();
            List<String> verdicts = new ArrayList<>();
            if (fenced) {
                verdicts.add("customers charged exactly once: " + Charges.customersWith(counts, 1));
                verdicts.add("stale writes rejected: "
                        + (billing.rejections.isEmpty() ? "none" : String.join(", ", billing.rejections)));
            } else {
                verdicts.add("customers charged twice: " + Charges.customersWith(counts, 2));
            }
            env.printVerdicts(verdicts);
            boolean asExpected = fenced
                    ? counts.values().stream().allMatch(n -> n == 1) && !billing.rejections.isEmpty()
                    : counts.values().stream().anyMatch(n -> n == 2);
            return new RunResult(
                    NAME,
                    mode,
                    !fenced,
                    timeline,
                    verdicts,
                    asExpected,
                    fenced
                            ? "every customer charged exactly once and A's stale write rejected"
                            : "customers charged twice after A wakes");
        } finally {
            env.dropTables(ds, prefix);
        }
    }
}
