package dev.leasehold.recipes;

import dev.leasehold.testkit.Ensemble;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/** Real ZooKeeper for tests: servers with a small tickTime so sessions expire in about a second. */
final class Zk {

    /** Session timeouts are bounded by the server to [2, 20] ticks: 200 ms .. 2 s here. */
    static final int TICK_MS = 100;
    /** Short enough for expiry tests to take seconds, long enough not to expire on a busy 2-core machine. */
    static final int SESSION_MS = 1_500;

    static final Duration WAIT = Duration.ofSeconds(20);

    static {
        // Four-letter words (srvr) tell which server is the quorum leader; must be set before servers start.
        Ensemble.allowFourLetterWords();
        // Reap empty container parents quickly (ZooKeeper's default checks once a minute).
        System.setProperty("znode.container.checkIntervalMs", "200");
    }

    private Zk() {}

    /** For tests that need a session to survive a reconnect: ticks of 500 ms allow sessions up to 10 s. */
    static final int LONG_TICK_MS = 500;

    static final int LONG_SESSION_MS = 8_000;

    static InstanceSpec spec() {
        return spec(TICK_MS);
    }

    static InstanceSpec spec(int tickMs) {
        return new InstanceSpec(null, -1, -1, -1, true, -1, tickMs, -1);
    }

    static TestingServer server() throws Exception {
        return new TestingServer(spec(), true);
    }

    static TestingServer server(int tickMs) throws Exception {
        return new TestingServer(spec(tickMs), true);
    }

    static CuratorFramework client(String connectString) throws InterruptedException {
        return started(builder(connectString));
    }

    static CuratorFrameworkFactory.Builder builder(String connectString) {
        return CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(SESSION_MS)
                .connectionTimeoutMs(SESSION_MS)
                .retryPolicy(new RetryNTimes(10, 100));
    }

    static CuratorFramework started(CuratorFrameworkFactory.Builder builder) throws InterruptedException {
        CuratorFramework client = builder.build();
        client.start();
        if (!client.blockUntilConnected((int) WAIT.toSeconds(), TimeUnit.SECONDS)) {
            client.close();
            throw new AssertionError("could not connect to ZooKeeper");
        }
        return client;
    }

    /** The czxid of a node, read by an independent client. */
    static long czxid(CuratorFramework observer, String path) throws Exception {
        Stat stat = observer.checkExists().forPath(path);
        if (stat == null) {
            throw new AssertionError(path + " does not exist");
        }
        return stat.getCzxid();
    }

    /** Waits, on watch events (no polling), until {@code path} has {@code count} children. */
    static void awaitChildren(CuratorFramework observer, String path, int count) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            CountDownLatch changed = new CountDownLatch(1);
            List<String> children;
            if (observer.checkExists()
                            .usingWatcher((Watcher) e -> changed.countDown())
                            .forPath(path)
                    == null) {
                children = List.of();
            } else {
                try {
                    children = observer.getChildren()
                            .usingWatcher((Watcher) e -> changed.countDown())
                            .forPath(path);
                } catch (KeeperException.NoNodeException reaped) {
                    continue; // an empty container reaped between the two reads: look again
                }
            }
            if (children.size() == count) {
                return;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !changed.await(left, TimeUnit.NANOSECONDS)) {
                throw new AssertionError(path + " has " + children.size() + " children, expected " + count);
            }
        }
    }

    /** Waits on a watch until {@code path} no longer exists. */
    static void awaitDeleted(CuratorFramework observer, String path) throws Exception {
        CountDownLatch deleted = new CountDownLatch(1);
        if (observer.checkExists()
                        .usingWatcher((Watcher) e -> {
                            if (e.getType() == Watcher.Event.EventType.NodeDeleted) {
                                deleted.countDown();
                            }
                        })
                        .forPath(path)
                == null) {
            return;
        }
        if (!deleted.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(path + " was not deleted within " + WAIT);
        }
    }
}
