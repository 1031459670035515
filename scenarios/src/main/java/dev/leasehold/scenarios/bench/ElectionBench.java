package dev.leasehold.scenarios.bench;

import dev.leasehold.recipes.FencedLeaderLatch;
import dev.leasehold.recipes.FencedLeaderListener;
import dev.leasehold.recipes.FencedLeaderSelector;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.scenarios.Env;
import dev.leasehold.testkit.TcpProxy;
import java.io.Closeable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;

/**
 * handoff, failover and herd: the recipes measured side by side with plain Curator on the same ensemble.
 *
 * <p>Why one file of more than 500 lines: each benchmark's recipe variant and plain-Curator variant must stay next to
 * each other, step for step, so that a reader can see the two measure the same thing; split, they would drift.
 */
final class ElectionBench {

    private static final long WAIT_MS = 60_000;
    private static final int HERD_SESSION_MS = 15_000;

    private final Env env;
    private final boolean quick;
    private final List<Closeable> closing = new ArrayList<>();
    private final List<Runnable> releaseAll = new ArrayList<>();
    private int paths;

    ElectionBench(Env env, boolean quick) {
        this.env = env;
        this.quick = quick;
    }

    private String path(String what) {
        return "/leasehold-bench/" + what + "-" + (++paths) + "-" + System.nanoTime();
    }

    private CuratorFramework client(String connect) {
        CuratorFramework client = env.client(connect);
        closing.add(client);
        return client;
    }

    void close() {
        releaseAll.forEach(Runnable::run); // end the selectors' held work first: they then close cleanly
        for (int i = closing.size() - 1; i >= 0; i--) {
            try {
                closing.get(i).close();
            } catch (Exception ignored) {
                // best effort
            }
        }
    }

    // ---- handoff ----------------------------------------------------------------------------------------------

    /** A pair of participants on one election; a handoff closes the leader (or ends its work) and times the next. */
    private interface Pair {
        long handoff() throws Exception;
    }

    /**
     * Plain LeaderLatch (its listener on ZooKeeper's event thread, Curator's default, or on an executor of its own, as
     * ZooKeeper's facts advise) or FencedLeaderLatch: close the leader, time until the other is told it leads.
     */
    private final class LatchPair implements Pair {
        final boolean fenced;
        final ExecutorService listenerExecutor;
        final String path = path("handoff-latch");
        final CuratorFramework[] clients = {client(env.zkConnect()), client(env.zkConnect())};
        final Closeable[] latches = new Closeable[2];
        final AtomicReference<CountDownLatch>[] acquired = newRefs();
        int leader;

        @SuppressWarnings("unchecked")
        private static AtomicReference<CountDownLatch>[] newRefs() {
            return (AtomicReference<CountDownLatch>[]) new AtomicReference<?>[] {
                new AtomicReference<>(new CountDownLatch(1)), new AtomicReference<>(new CountDownLatch(1))
            };
        }

        LatchPair(boolean fenced) throws Exception {
            this(fenced, false);
        }

        LatchPair(boolean fenced, boolean listenerOnExecutor) throws Exception {
            this.fenced = fenced;
            this.listenerExecutor = listenerOnExecutor
                    ? Executors.newSingleThreadExecutor(r -> {
                        Thread thread = new Thread(r, "bench-listener");
                        thread.setDaemon(true);
                        return thread;
                    })
                    : null;
            if (listenerExecutor != null) {
                closing.add(listenerExecutor::shutdownNow);
            }
            join(0);
            await(acquired[0].get(), "the first leader");
            join(1);
            awaitChildren(clients[0], path, 2);
            leader = 0;
        }

        private void join(int i) throws Exception {
            acquired[i].set(new CountDownLatch(1));
            CountDownLatch told = acquired[i].get();
            if (fenced) {
                FencedLeaderLatch latch = new FencedLeaderLatch(clients[i], path, "p" + i);
                latch.addListener(new FencedLeaderListener() {
                    @Override
                    public void leadershipAcquired(FencingToken token) {
                        told.countDown();
                    }

                    @Override
                    public void leadershipLost(FencingToken token) {}
                });
                latch.start();
                latches[i] = latch;
            } else {
                LeaderLatch latch = new LeaderLatch(clients[i], path, "p" + i);
                LeaderLatchListener listener = new LeaderLatchListener() {
                    @Override
                    public void isLeader() {
                        told.countDown();
                    }

                    @Override
                    public void notLeader() {}
                };
                if (listenerExecutor != null) {
                    latch.addListener(listener, listenerExecutor);
                } else {
                    latch.addListener(listener);
                }
                latch.start();
                latches[i] = latch;
            }
        }

        @Override
        public long handoff() throws Exception {
            int next = 1 - leader;
            long start = System.nanoTime();
            latches[leader].close();
            await(acquired[next].get(), "the next leader");
            long took = System.nanoTime() - start;
            join(leader);
            awaitChildren(clients[next], path, 2);
            leader = next;
            return took;
        }
    }

    /** Plain LeaderSelector or FencedLeaderSelector: end the leader's work, time until the next one's work starts. */
    private final class SelectorPair implements Pair {
        final String path = path("handoff-selector");
        final CuratorFramework client0 = client(env.zkConnect());
        final List<AtomicReference<CountDownLatch>> release = List.of(new AtomicReference<>(), new AtomicReference<>());
        final BlockingQueue<Integer> started = new LinkedBlockingQueue<>();
        int leader;

        SelectorPair(boolean fenced) throws Exception {
            for (int i = 0; i < 2; i++) {
                int me = i;
                CuratorFramework client = i == 0 ? client0 : client(env.zkConnect());
                if (fenced) {
                    FencedLeaderSelector selector =
                            new FencedLeaderSelector(client, path, "s" + i, (c, token) -> work(me));
                    selector.autoRequeue();
                    selector.start();
                    closing.add(selector);
                } else {
                    LeaderSelector selector = new LeaderSelector(client, path, new LeaderSelectorListenerAdapter() {
                        @Override
                        public void takeLeadership(CuratorFramework c) throws Exception {
                            work(me);
                        }
                    });
                    selector.setId("s" + i);
                    selector.autoRequeue();
                    selector.start();
                    closing.add(selector);
                }
                if (i == 0) {
                    leader = next();
                }
            }
            awaitChildren(client0, path, 2);
            releaseAll.add(() -> {
                stopped = true;
                release.forEach(r -> {
                    if (r.get() != null) {
                        r.get().countDown();
                    }
                });
            });
        }

        private volatile boolean stopped;

        private void work(int me) throws InterruptedException {
            if (stopped) {
                return;
            }
            CountDownLatch done = new CountDownLatch(1);
            release.get(me).set(done);
            started.add(me);
            done.await();
        }

        private int next() throws InterruptedException {
            Integer who = started.poll(WAIT_MS, TimeUnit.MILLISECONDS);
            if (who == null) {
                throw new IllegalStateException("no selector took leadership within " + WAIT_MS + " ms");
            }
            return who;
        }

        @Override
        public long handoff() throws Exception {
            long start = System.nanoTime();
            release.get(leader).get().countDown();
            int now = next();
            long took = System.nanoTime() - start;
            if (now == leader) {
                throw new IllegalStateException("the released selector led again: the other was not queued");
            }
            awaitChildren(client0, path, 2);
            leader = now;
            return took;
        }
    }

    List<Row> handoff() throws Exception {
        int rounds = quick ? 20 : 200;
        int warmup = quick ? 3 : 20;
        List<Row> rows = new ArrayList<>();
        rows.addAll(sideBySide(
                "handoff",
                "LeaderLatch",
                "FencedLeaderLatch",
                new LatchPair(false),
                new LatchPair(true),
                warmup,
                rounds,
                LATCH_GOAL));
        rows.addAll(sideBySide(
                "handoff",
                "LeaderSelector",
                "FencedLeaderSelector",
                new SelectorPair(false),
                new SelectorPair(true),
                warmup,
                rounds,
                SELECTOR_GOAL));
        // The fenced latch tells its listeners on its own thread, never on ZooKeeper's: one thread hand-off that the
        // plain latch above skips. The same hand-off in plain Curator, side by side, shows what that costs.
        rows.addAll(sideBySide(
                "handoff",
                "LeaderLatch, listener on an executor",
                "FencedLeaderLatch (vs listener on an executor)",
                new LatchPair(false, true),
                new LatchPair(true),
                warmup,
                rounds,
                LATCH_GOAL));
        return rows;
    }

    /** The latch's grant costs no request beyond Curator's; the selector's, one read of its own node. */
    private static final double LATCH_GOAL = 1.15;

    private static final double SELECTOR_GOAL = 1.30;

    private static List<Row> sideBySide(
            String benchmark,
            String baselineName,
            String fencedName,
            Pair baseline,
            Pair fenced,
            int warmup,
            int rounds,
            double goal)
            throws Exception {
        Samples plain = new Samples();
        Samples ours = new Samples();
        for (int i = 0; i < warmup + rounds; i++) {
            boolean plainFirst = i % 2 == 0; // A B, B A, ...: neither side always runs on a warmer machine
            long a = plainFirst ? baseline.handoff() : 0;
            long b = fenced.handoff();
            if (!plainFirst) {
                a = baseline.handoff();
            }
            if (i >= warmup) {
                plain.add(a);
                ours.add(b);
            }
        }
        double ratio = ours.median() / (double) plain.median();
        return List.of(
                Row.durations(benchmark, baselineName, plain, false),
                Row.durations(benchmark, fencedName, ours, false)
                        .compared(String.format("%.2f", ratio), goal(ratio <= goal, String.format("<= %.2f", goal))));
    }

    // ---- failover ---------------------------------------------------------------------------------------------

    /** Two participants, each behind its own proxy; the leader's proxy goes silent until the other leads. */
    private final class Failover {
        final boolean fenced;
        final String path = path("failover");
        final TcpProxy[] proxies = new TcpProxy[2];
        final CuratorFramework[] clients = new CuratorFramework[2];
        final List<BlockingQueue<Boolean>> told = List.of(new LinkedBlockingQueue<>(), new LinkedBlockingQueue<>());
        int leader;

        Failover(boolean fenced) throws Exception {
            this.fenced = fenced;
            for (int i = 0; i < 2; i++) {
                proxies[i] = TcpProxy.to(env.zkConnect());
                closing.add(proxies[i]);
                clients[i] = client(proxies[i].connectString());
                join(i);
                if (i == 0) {
                    take(0);
                }
            }
            awaitChildren(clients[0], path, 2);
        }

        int sessionMillis() throws Exception {
            return clients[0].getZookeeperClient().getZooKeeper().getSessionTimeout();
        }

        private void join(int i) {
            if (fenced) {
                FencedLeaderLatch latch = new FencedLeaderLatch(clients[i], path, "p" + i);
                latch.addListener(new FencedLeaderListener() {
                    @Override
                    public void leadershipAcquired(FencingToken token) {
                        told.get(i).add(true);
                    }

                    @Override
                    public void leadershipLost(FencingToken token) {}
                });
                latch.start();
                closing.add(latch);
            } else {
                LeaderLatch latch = new LeaderLatch(clients[i], path, "p" + i);
                latch.addListener(new LeaderLatchListener() {
                    @Override
                    public void isLeader() {
                        told.get(i).add(true);
                    }

                    @Override
                    public void notLeader() {}
                });
                try {
                    latch.start();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                closing.add(latch);
            }
        }

        private void take(int i) throws InterruptedException {
            if (told.get(i).poll(WAIT_MS, TimeUnit.MILLISECONDS) == null) {
                throw new IllegalStateException("p" + i + " was not told it leads within " + WAIT_MS + " ms");
            }
        }

        long failover() throws Exception {
            int next = 1 - leader;
            long start = System.nanoTime();
            proxies[leader].silence();
            take(next);
            long took = System.nanoTime() - start;
            proxies[leader].resume();
            awaitChildren(clients[next], path, 2); // the silenced one is back, behind the new leader
            told.get(leader).clear();
            leader = next;
            return took;
        }
    }

    List<Row> failover() throws Exception {
        int rounds = quick ? 1 : 5;
        Failover plain = new Failover(false);
        Failover fenced = new Failover(true);
        Samples plainSamples = new Samples();
        Samples fencedSamples = new Samples();
        for (int i = 0; i < rounds; i++) {
            plainSamples.add(plain.failover());
            fencedSamples.add(fenced.failover());
        }
        int session = fenced.sessionMillis();
        long bound = TimeUnit.MILLISECONDS.toNanos(session + (env.embeddedZooKeeper() ? Env.TICK_MS : 2_000));
        double ratio = fencedSamples.median() / (double) plainSamples.median();
        return List.of(
                Row.durations("failover", "LeaderLatch (session " + session + " ms)", plainSamples, false),
                Row.durations("failover", "FencedLeaderLatch (session " + session + " ms)", fencedSamples, false)
                        .compared(
                                String.format("%.2f", ratio),
                                goal(fencedSamples.median() <= bound, "<= session + one tick")));
    }

    // ---- herd -------------------------------------------------------------------------------------------------

    /**
     * Hundreds of clients on two cores starve a 100 ms-tick server's sessions, so the herd runs on its own embedded
     * server with a 1 s tick and 15 s sessions (or on the given ensemble, with the same session request).
     */
    List<Row> herd() throws Exception {
        List<Row> rows = new ArrayList<>();
        TestingServer own = env.embeddedZooKeeper()
                ? new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 1_000, 0), true)
                : null;
        String connect = own != null ? own.getConnectString() : env.zkConnect();
        try {
            for (int n : quick ? new int[] {10, 100} : new int[] {10, 100, 500}) {
                try (TcpProxy proxy = TcpProxy.to(connect)) {
                    List<CuratorFramework> clients = new ArrayList<>();
                    try (CuratorFramework observer = env.client(connect, HERD_SESSION_MS)) {
                        for (int i = 0; i < n; i++) {
                            clients.add(env.client(proxy.connectString(), HERD_SESSION_MS));
                        }
                        double recipes = recipeHerd(proxy, clients, observer);
                        double naive = naiveHerd(proxy, clients);
                        rows.add(new Row(
                                "herd", "naive election, " + n + " participants", 1, fmt(naive), "", "", "", ""));
                        rows.add(new Row(
                                "herd",
                                "FencedLeaderLatch, " + n + " participants",
                                3,
                                fmt(recipes),
                                "",
                                "",
                                String.format("%.3f", recipes / naive),
                                goal(recipes == 1.0, "exactly 1 per change")));
                    } finally {
                        for (CuratorFramework client : clients) {
                            client.close();
                        }
                    }
                }
            }
        } finally {
            if (own != null) {
                own.close();
            }
        }
        return rows;
    }

    private static String fmt(double notifications) {
        return String.format("%.1f notifications", notifications);
    }

    /** Watch notifications per leader change among the clients' FencedLeaderLatches (3 changes, averaged). */
    /** The observer is not behind the proxy: its own watches are not counted. */
    private double recipeHerd(TcpProxy proxy, List<CuratorFramework> clients, CuratorFramework observer)
            throws Exception {
        String path = path("herd-recipes");
        List<FencedLeaderLatch> latches = new ArrayList<>();
        List<BlockingQueue<Boolean>> told = new ArrayList<>();
        try {
            for (int i = 0; i < clients.size(); i++) {
                BlockingQueue<Boolean> queue = new LinkedBlockingQueue<>();
                told.add(queue);
                FencedLeaderLatch latch = new FencedLeaderLatch(clients.get(i), path, "p" + i);
                latch.addListener(new FencedLeaderListener() {
                    @Override
                    public void leadershipAcquired(FencingToken token) {
                        queue.add(true);
                    }

                    @Override
                    public void leadershipLost(FencingToken token) {}
                });
                latch.start();
                latches.add(latch);
                awaitChildren(observer, path, i + 1); // one by one: the queue follows the join order
            }
            if (!proxy.awaitWatchRequests(path, clients.size() - 1, Duration.ofMillis(WAIT_MS))) {
                throw new IllegalStateException("not every follower watched its predecessor");
            }
            told.get(0).poll(WAIT_MS, TimeUnit.MILLISECONDS);
            long before = proxy.watchNotifications();
            int changes = Math.min(3, clients.size() - 1);
            for (int i = 0; i < changes; i++) {
                latches.get(i).close();
                if (told.get(i + 1).poll(WAIT_MS, TimeUnit.MILLISECONDS) == null) {
                    throw new IllegalStateException("p" + (i + 1) + " did not take over");
                }
            }
            roundTrips(clients);
            return (proxy.watchNotifications() - before) / (double) changes;
        } finally {
            latches.forEach(FencedLeaderLatch::close);
        }
    }

    /**
     * The naive election, written for this benchmark only: every participant creates an ephemeral-sequential node
     * and watches the children list; any change wakes everyone, who re-reads the list and watches it again.
     */
    private double naiveHerd(TcpProxy proxy, List<CuratorFramework> clients) throws Exception {
        String path = path("herd-naive");
        clients.get(0).create().creatingParentsIfNeeded().forPath(path);
        List<String> nodes = new ArrayList<>();
        for (CuratorFramework client : clients) {
            nodes.add(client.create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(path + "/n-"));
            watchChildren(client, path);
        }
        roundTrips(clients);
        long before = proxy.watchNotifications();
        clients.get(0).delete().forPath(nodes.get(0)); // one leader change: the lowest node goes away
        roundTrips(clients);
        double perChange = proxy.watchNotifications() - before;
        for (int i = 1; i < clients.size(); i++) {
            clients.get(i).delete().quietly().forPath(nodes.get(i));
        }
        return perChange;
    }

    private static void watchChildren(CuratorFramework client, String path) throws Exception {
        client.getChildren()
                .usingWatcher((Watcher) event -> {
                    if (event.getType() == Watcher.Event.EventType.NodeChildrenChanged) {
                        try {
                            watchChildren(client, path); // am I the lowest now? re-read and watch again
                        } catch (Exception ignored) {
                            // the benchmark counts notifications; a failed re-read only lowers the naive count
                        }
                    }
                })
                .forPath(path);
    }

    /** A round trip on every client: any notification the server sent before it has crossed the proxy. */
    private static void roundTrips(List<CuratorFramework> clients) throws Exception {
        for (CuratorFramework client : clients) {
            client.sync().forPath("/");
            client.checkExists().forPath("/");
        }
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    static String goal(boolean met, String goal) {
        return (met ? "met: " : "MISSED: ") + goal;
    }

    private static void await(CountDownLatch latch, String what) throws InterruptedException {
        dev.leasehold.scenarios.Latches.await(latch, WAIT_MS, what);
    }

    static void awaitChildren(CuratorFramework client, String path, int count) throws Exception {
        dev.leasehold.scenarios.Zk.awaitChildren(client, path, count, WAIT_MS);
    }
}
