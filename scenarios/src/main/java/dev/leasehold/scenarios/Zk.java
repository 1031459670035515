package dev.leasehold.scenarios;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Watcher;

/** Small ZooKeeper waits driven by watch events (no polling). */
public final class Zk {

    private Zk() {}

    /**
     * The session timeout the server negotiated for the connected {@code client} (it bounds every ask to 2 to 20 of
     * its ticks by default), with the ask beside it when they differ: "4000 ms (negotiated; asked 1500 ms)".
     */
    public static String sessionTimeout(CuratorFramework client, int askedMs) throws Exception {
        int negotiated = client.getZookeeperClient().getZooKeeper().getSessionTimeout();
        return negotiated + " ms"
                + (negotiated == askedMs ? "" : " (negotiated by the server; asked " + askedMs + " ms)");
    }

    /** Waits until {@code path} has at least {@code count} children. */
    public static void awaitChildren(CuratorFramework client, String path, int count, long timeoutMillis)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true) {
            CountDownLatch changed = new CountDownLatch(1);
            Watcher watcher = event -> changed.countDown();
            List<String> children = client.checkExists().usingWatcher(watcher).forPath(path) == null
                    ? List.of()
                    : client.getChildren().usingWatcher(watcher).forPath(path);
            if (children.size() >= count) {
                return;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !changed.await(left, TimeUnit.NANOSECONDS)) {
                throw new IllegalStateException(path + " has " + children.size() + " participants, expected " + count);
            }
        }
    }
}
