package dev.leasehold.scenarios.incidents.billing;

import dev.leasehold.recipes.FencedLeaderSelector;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.recipes.LossCause;
import dev.leasehold.scenarios.RunResult;
import dev.leasehold.scenarios.Scenario;
import dev.leasehold.scenarios.cli.Env;
import dev.leasehold.scenarios.incidents.RetryingGate;
import dev.leasehold.scenarios.report.Timeline;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;

/**
 * Issue 27, the leader that is alive but stuck. A, B, C elect the billing leader with {@link FencedLeaderSelector}.
 * A leads; after three customers its loop blocks on a lock it never gets ({@code lock()} ignores interrupts). A's
 * ZooKeeper session stays alive, so its node stays, so nobody takes over.
 * <ul>
 *   <li>as it happened (no progress deadline): nobody bills for the rest of the run;</li>
 *   <li>with a progress deadline: A's loop calls {@code progress()} once per customer; the deadline passes, A gives
 *       leadership up (token withdrawn, node deleted), B takes over, fences first and bills the rest; when A's stuck
 *       thread wakes and writes, the fence refuses its token.</li>
 * </ul>
 */
public final class StuckLeaderScenario implements Scenario {

    static final String NAME = "stuck-leader";
    private static final List<String> CUSTOMERS = Charges.CUSTOMERS;
    private static final int CHARGED_BEFORE_STUCK = 3;
    private static final long CHARGE_MS = 60;
    private static final Duration DEADLINE = Duration.ofMillis(600);
    /** The rest of the nightly run, as the story sees it (a simulated window, not a synchronisation). */
    private static final long REST_OF_RUN_MS = 3_000;

    private static final long WAIT_MS = 30_000;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String summary() {
        return "issue 27: the billing leader hangs on a lock with its session alive; without and with a progress deadline";
    }

    @Override
    public List<RunResult> run(Env env) throws Exception {
        return List.of(run(env, false), run(env, true));
    }

    /** One run: the election, the billing loop of each instance, and what the scenario observes. */
    private final class Billing {
        final boolean withDeadline;
        final Timeline timeline;
        final FenceGate gate;
        final Charges charges;
        final ReentrantLock neverFree = new ReentrantLock();
        final AtomicBoolean stuckOnce = new AtomicBoolean();
        final CountDownLatch aStuck = new CountDownLatch(1);
        final CountDownLatch aLeads = new CountDownLatch(1);
        final CountDownLatch allCharged = new CountDownLatch(1);
        final CountDownLatch aDone = new CountDownLatch(1);
        final CountDownLatch runOver = new CountDownLatch(1);
        final List<String> leaders = new CopyOnWriteArrayList<>();
        final List<String> rejections = new CopyOnWriteArrayList<>();
        final Map<String, FencedLeaderSelector> selectors = new LinkedHashMap<>();

        Billing(boolean withDeadline, Timeline timeline, FenceGate gate, Charges charges) {
            this.withDeadline = withDeadline;
            this.timeline = timeline;
            this.gate = gate;
            this.charges = charges;
        }

        void lead(String me, FencingToken token) throws Exception {
            if (runOver.getCount() == 0) {
                return; // the nightly window is over: nothing to lead
            }
            FencedLeaderSelector selector = selectors.get(me);
            long t = token.value();
            leaders.add(me);
            RetryingGate.advance(gate, Charges.RESOURCE, t, text -> timeline.problem(me, text));
            timeline.accepted(
                    me, "leads; fenced first: " + Charges.RESOURCE + " now refuses tokens below " + t, t, "fence");
            if (me.equals("A")) {
                aLeads.countDown();
            }
            int chargedByMe = 0;
            for (String customer : CUSTOMERS) {
                if (charges.charged().contains(customer)) {
                    continue;
                }
                selector.progress();
                if (me.equals("A") && chargedByMe == CHARGED_BEFORE_STUCK && stuckOnce.compareAndSet(false, true)) {
                    timeline.problem(me, "blocks on a lock it never gets (session alive, node alive)", customer);
                    aStuck.countDown();
                    neverFree.lock(); // ignores interrupts: only the scenario's unlock frees it
                    neverFree.unlock();
                    boolean interrupted = Thread.interrupted(); // the withdrawal's interrupt could not reach lock()
                    timeline.info(me, "wakes" + (interrupted ? " (was interrupted while stuck)" : ""));
                    if (runOver.getCount() == 0) {
                        aDone.countDown();
                        return; // the nightly window is over
                    }
                    if (!charge(me, customer, t)) { // it goes straight on with the charge it was about to make
                        aDone.countDown();
                        return;
                    }
                    chargedByMe++;
                    continue;
                }
                Thread.sleep(CHARGE_MS); // the story's time to charge one customer
                if (!charge(me, customer, t)) {
                    return;
                }
                chargedByMe++;
            }
            timeline.info(me, "billing run complete");
            allCharged.countDown();
            while (!runOver.await(DEADLINE.toMillis() / 4, TimeUnit.MILLISECONDS)) {
                selector.progress(); // idle until the next night, and alive
            }
        }

        private boolean charge(String me, String customer, long token) throws SQLException {
            return charges.chargeFenced(gate, timeline, rejections, me, customer, token);
        }
    }

    private RunResult run(Env env, boolean withDeadline) throws Exception {
        String mode = withDeadline ? "with a progress deadline" : "as it happened";
        env.out()
                .println("-- " + mode + ": A, B, C elect the billing leader; A's loop hangs after "
                        + CHARGED_BEFORE_STUCK + " customers"
                        + (withDeadline ? "; progress deadline " + DEADLINE.toMillis() + " ms" : "; no deadline"));
        Timeline timeline = new Timeline(NAME + ": " + mode, env.out(), List.of("A", "B", "C"));
        DataSource ds = env.dataSource(NAME + (withDeadline ? "-deadline" : "-as-it-happened"));
        String prefix = env.tablePrefix();
        StoreConfig config = StoreConfig.defaults().withTablePrefix(prefix);
        FencedSchema.install(ds, config);
        Charges charges = Charges.create(ds, prefix, false);
        Billing billing = new Billing(withDeadline, timeline, new FenceGate(ds, config), charges);
        String path = "/leasehold-scenarios/" + prefix + "stuck";
        List<CuratorFramework> clients = new ArrayList<>();
        billing.neverFree.lock();
        try {
            for (String name : List.of("A", "B", "C")) {
                CuratorFramework client = env.client(env.zkConnect());
                clients.add(client);
                FencedLeaderSelector selector =
                        new FencedLeaderSelector(client, path, name, (c, token) -> billing.lead(name, token));
                if (withDeadline) {
                    selector.setProgressDeadline(DEADLINE);
                }
                selector.autoRequeue();
                billing.selectors.put(name, selector);
            }
            billing.selectors.get("A").start();
            await(billing.aLeads, "A to lead");
            billing.selectors.get("B").start();
            billing.selectors.get("C").start();
            await(billing.aStuck, "A's loop to hang");
            List<String> verdicts = new ArrayList<>();
            boolean asExpected;
            if (!withDeadline) {
                Thread.sleep(REST_OF_RUN_MS); // the rest of the nightly run (simulated time): nobody takes over
                Map<String, Integer> counts = charges.countByCustomer();
                List<String> leadersDuringRun = List.copyOf(billing.leaders);
                timeline.problem("A", "the run is over; A still holds leadership and its loop still hangs");
                billing.runOver.countDown();
                billing.neverFree.unlock();
                await(billing.aDone, "A's stuck thread to return");
                timeline.finish();
                verdicts.add("customers billed during the run: " + Charges.customersWith(counts, 1));
                verdicts.add("customers never billed during the run: " + Charges.customersWith(counts, 0));
                verdicts.add("leaders during the run: " + String.join(", ", leadersDuringRun));
                asExpected = counts.values().stream().anyMatch(n -> n == 0) && leadersDuringRun.equals(List.of("A"));
            } else {
                await(billing.allCharged, "another instance to take over and bill the rest");
                billing.neverFree.unlock(); // A's stuck thread wakes and writes with its old token
                await(billing.aDone, "A's stuck thread to write and stop");
                billing.runOver.countDown();
                timeline.finish();
                Map<String, Integer> counts = charges.countByCustomer();
                verdicts.add("customers charged exactly once: " + Charges.customersWith(counts, 1));
                verdicts.add("leaders in order: " + String.join(", ", billing.leaders));
                verdicts.add("A gave leadership up: "
                        + billing.selectors
                                .get("A")
                                .lastWithdrawal()
                                .map(LossCause::name)
                                .orElse("no"));
                verdicts.add("stale writes rejected: "
                        + (billing.rejections.isEmpty() ? "none" : String.join(", ", billing.rejections)));
                asExpected = counts.values().stream().allMatch(n -> n == 1)
                        && !billing.rejections.isEmpty()
                        && billing.selectors.get("A").lastWithdrawal().orElse(null) == LossCause.STALLED;
            }
            env.printVerdicts(verdicts);
            return new RunResult(
                    NAME,
                    mode,
                    !withDeadline,
                    timeline,
                    verdicts,
                    asExpected,
                    withDeadline
                            ? "A gives up (stalled), another instance bills every customer once, A's late write refused"
                            : "A keeps leadership while stuck and customers go unbilled");
        } finally {
            billing.runOver.countDown();
            if (billing.neverFree.isHeldByCurrentThread()) {
                billing.neverFree.unlock();
            }
            billing.selectors.values().forEach(FencedLeaderSelector::close);
            clients.forEach(CuratorFramework::close);
            env.dropTables(ds, prefix);
        }
    }

    private static void await(CountDownLatch latch, String what) throws InterruptedException {
        if (!latch.await(WAIT_MS, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("the scenario waited " + WAIT_MS + " ms for " + what);
        }
    }
}
