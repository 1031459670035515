package dev.leasehold.scenarios.incidents.billing;

import dev.leasehold.recipes.FencedLeaderLatch;
import dev.leasehold.recipes.FencedLeaderListener;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.scenarios.Latches;
import dev.leasehold.scenarios.Zk;
import dev.leasehold.scenarios.cli.Env;
import dev.leasehold.scenarios.incidents.RetryingGate;
import dev.leasehold.scenarios.report.Timeline;
import dev.leasehold.store.FenceGate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;

/**
 * Three schedulers A, B, C elect a billing leader with {@link FencedLeaderLatch}; A pauses mid-run. A's ZooKeeper
 * connection goes through a proxy that is silenced, so the server expires A's session and B takes over; A's worker is
 * held at its pause point (between its leadership check and its next step) until B's run is done, then wakes still
 * believing it leads. The billing work itself is the caller's ({@link Work}); its first step and its loop over the
 * customers, with the pause point, are the {@link Leader}'s ({@link Leader#fenceFirst}, {@link Leader#forEachCustomer}).
 * Used by {@link StaleLeaderScenario} and {@link BillingExternalScenario}.
 */
final class BillingElection implements AutoCloseable {

    private static final long WAIT_MS = 30_000;

    /** One leader's billing run. */
    @FunctionalInterface
    interface Work {
        void run(Leader leader) throws Exception;
    }

    /** One step of a leader's run, for one customer. */
    @FunctionalInterface
    interface Step {
        /** Returns false if the step's write was refused: the run ends. */
        boolean run(String customer) throws Exception;
    }

    /** What the work sees of its scheduler. */
    final class Leader {
        final String name;
        final long token;

        private Leader(String name, long token) {
            this.name = name;
            this.token = token;
        }

        boolean stillLeads() {
            return schedulers.get(name).latch.hasLeadership();
        }

        /**
         * Fences {@code resource} at this leader's token, the first step of every fenced run, and says so; a retryable
         * failure is retried ({@link RetryingGate}), each retry on the timeline.
         */
        void fenceFirst(FenceGate gate, String resource) throws InterruptedException {
            RetryingGate.advance(gate, resource, token, text -> timeline.problem(name, text));
            timeline.accepted(name, "fenced first: " + resource + " now refuses tokens below " + token, token, "fence");
        }

        /**
         * The billing run's loop, the same in every design: for each customer not in {@code done}, in order, it stops
         * if this scheduler no longer leads; before the step after the first {@code pauseAfter} ones it reaches the
         * {@link #pausePoint}; it lets the story's time for one step pass ({@code stepMs}), then runs the step. A step
         * that returns false (its write was refused) ends the run.
         *
         * @param next what the paused leader does next, for the customer it pauses before
         */
        void forEachCustomer(
                List<String> customers,
                Set<String> done,
                int pauseAfter,
                Function<String, String> next,
                long stepMs,
                Step step)
                throws Exception {
            int stepped = 0;
            for (String customer : customers) {
                if (done.contains(customer)) {
                    continue;
                }
                if (!stillLeads()) {
                    timeline.info(name, "not leader any more: stops");
                    return;
                }
                if (stepped == pauseAfter) {
                    pausePoint(next.apply(customer)); // A's worker is frozen here, once
                }
                Thread.sleep(stepMs); // the story's time for one step
                if (!step.run(customer)) {
                    return;
                }
                stepped++;
            }
        }

        /** For A on its first call: freezes here, as in a GC pause, until B's run is done. Else returns at once. */
        void pausePoint(String next) throws InterruptedException {
            if (name.equals("A") && aPaused.getCount() > 0) {
                aPaused.countDown();
                Latches.await(aResumes, WAIT_MS, "A's pause ends");
                timeline.info(name, "wakes up, still believing it leads with token " + token + "; " + next);
            }
        }
    }

    private final class Scheduler implements FencedLeaderListener {
        final String name;
        final FencedLeaderLatch latch;
        final CountDownLatch granted = new CountDownLatch(1);
        final CountDownLatch runDone = new CountDownLatch(1);
        volatile int leadership = -1;

        Scheduler(String name, FencedLeaderLatch latch) {
            this.name = name;
            this.latch = latch;
        }

        @Override
        public void leadershipAcquired(FencingToken token) {
            leadership = timeline.begin(name, Timeline.SpanKind.LEADERSHIP, "leader, token " + token.value());
            timeline.info(
                    name, "leads with token " + token.value() + " (czxid 0x" + Long.toHexString(token.value()) + ")");
            granted.countDown();
            Thread worker = new Thread(
                    () -> {
                        try {
                            work.run(new Leader(name, token.value()));
                        } catch (Exception e) {
                            timeline.problem(name, "billing run failed: " + e);
                        } finally {
                            runDone.countDown();
                        }
                    },
                    "billing-" + name);
            worker.start();
        }

        @Override
        public void leadershipLost(FencingToken token) {
            timeline.end(leadership);
            timeline.info(
                    name,
                    "ZooKeeper client: leadership lost, token " + token.value() + " withdrawn"
                            + (name.equals("A") ? " (A's billing worker is frozen and does not see it)" : ""));
        }
    }

    private final Env env;
    private final Timeline timeline;
    private final String path;
    private final Work work;
    private final Map<String, Scheduler> schedulers = new LinkedHashMap<>();
    private final List<AutoCloseable> closing = new ArrayList<>();
    private final CountDownLatch aPaused = new CountDownLatch(1);
    private final CountDownLatch aResumes = new CountDownLatch(1);

    BillingElection(Env env, Timeline timeline, String path, Work work) {
        this.env = env;
        this.timeline = timeline;
        this.path = path;
        this.work = work;
    }

    /** Runs the story: A leads and pauses, B takes over and finishes, A wakes; returns once A's worker stopped. */
    void run() throws Exception {
        Env.ProxiedClient a = env.proxiedClient();
        closing.add(a);
        var b = env.client(env.zkConnect());
        closing.add(b);
        var c = env.client(env.zkConnect());
        closing.add(c);
        for (var entry : List.of(Map.entry("A", a.client()), Map.entry("B", b), Map.entry("C", c))) {
            FencedLeaderLatch latch = new FencedLeaderLatch(entry.getValue(), path, entry.getKey());
            closing.add(0, latch);
            Scheduler scheduler = new Scheduler(entry.getKey(), latch);
            latch.addListener(scheduler);
            schedulers.put(entry.getKey(), scheduler);
        }
        schedulers.get("A").latch.start();
        Latches.await(schedulers.get("A").granted, WAIT_MS, "A leads");
        schedulers.get("B").latch.start();
        Zk.awaitChildren(b, path, 2, WAIT_MS);
        schedulers.get("C").latch.start();
        Zk.awaitChildren(b, path, 3, WAIT_MS);
        timeline.info("B", "follows, watching A's node");
        timeline.info("C", "follows, watching B's node");

        Latches.await(aPaused, WAIT_MS, "A reaches its pause");
        a.proxy().silence();
        int pause = timeline.begin("A", Timeline.SpanKind.PAUSE, "paused: process silent");
        timeline.problem(
                "A",
                "PAUSES (a long GC pause): its process goes silent; the server will expire its session" + " after "
                        + Zk.sessionTimeout(a.client(), Env.SESSION_MS));
        Latches.await(schedulers.get("B").granted, WAIT_MS, "B takes over");
        Latches.await(schedulers.get("B").runDone, WAIT_MS, "B finishes the run");
        a.proxy().resume();
        timeline.end(pause);
        aResumes.countDown();
        Latches.await(schedulers.get("A").runDone, WAIT_MS, "A's worker stops");
    }

    @Override
    public void close() {
        aResumes.countDown();
        for (AutoCloseable closeable : closing) {
            try {
                closeable.close();
            } catch (Exception ignored) {
                // best effort
            }
        }
    }
}
