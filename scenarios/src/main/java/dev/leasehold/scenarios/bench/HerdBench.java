package dev.leasehold.scenarios.bench;

import dev.leasehold.recipes.FencedLeaderLatch;
import dev.leasehold.recipes.FencedLeaderListener;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.testkit.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;

/**
 * herd: watch notifications per leader change, FencedLeaderLatch against a naive election in which every participant
 * watches the children list; the goal is exactly one notification per change.
 *
 * <p>Hundreds of clients on two cores starve a 100 ms-tick server's sessions, so the herd runs on its own embedded
 * server with a 1 s tick and 15 s sessions (or on the given ensemble, with the same session request).
 *
 * <p>Thread-safety: used by the bench's one thread.
 */
final class HerdBench {

    private static final int HERD_SESSION_MS = 15_000;
    private static final long WAIT_MS = ElectionBench.WAIT_MS;

    private final ElectionBench bench;

    HerdBench(ElectionBench bench) {
        this.bench = bench;
    }

    List<Row> run() throws Exception {
        List<Row> rows = new ArrayList<>();
        TestingServer own = bench.env.embeddedZooKeeper()
                ? new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 1_000, 0), true)
                : null;
        String connect = own != null ? own.getConnectString() : bench.env.zkConnect();
        try {
            for (int n : bench.quick ? new int[] {10, 30} : new int[] {10, 100, 500}) { // --quick: two sizes, small
                try (TcpProxy proxy = TcpProxy.to(connect)) {
                    List<CuratorFramework> clients = new ArrayList<>();
                    try (CuratorFramework observer = bench.env.client(connect, HERD_SESSION_MS)) {
                        for (int i = 0; i < n; i++) {
                            clients.add(bench.env.client(proxy.connectString(), HERD_SESSION_MS));
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
                                ElectionBench.goal(recipes == 1.0, "exactly 1 per change")));
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

    /**
     * Watch notifications per leader change among the clients' FencedLeaderLatches (3 changes, averaged). The
     * observer is not behind the proxy: its own watches are not counted.
     */
    private double recipeHerd(TcpProxy proxy, List<CuratorFramework> clients, CuratorFramework observer)
            throws Exception {
        String path = bench.path("herd-recipes");
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
                ElectionBench.awaitChildren(observer, path, i + 1); // one by one: the queue follows the join order
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
        String path = bench.path("herd-naive");
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
}
