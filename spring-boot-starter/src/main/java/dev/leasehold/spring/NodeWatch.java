package dev.leasehold.spring;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Watcher;

/**
 * Waits for a znode to be deleted, and for the answer to the delete to have reached the client, with a one-shot
 * watch and one more read: no polling. The watch only counts a latch down, so it never
 * blocks ZooKeeper's event thread.
 *
 * <p>Thread-safety: stateless.
 */
final class NodeWatch {

    private NodeWatch() {}

    /**
     * @param client   the client
     * @param fullPath the node's full path (with the client's namespace, as in a token)
     * @param timeout  how long to wait
     * @return {@code true} if the node is gone, {@code false} on timeout, interrupt or a failed read
     */
    static boolean awaitDeleted(CuratorFramework client, String fullPath, Duration timeout) {
        CountDownLatch gone = new CountDownLatch(1);
        Watcher watcher = event -> {
            if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
                gone.countDown();
            }
        };
        try {
            CuratorFramework root = client.usingNamespace(null);
            if (root.checkExists().usingWatcher(watcher).forPath(fullPath) == null) {
                return true;
            }
            if (!gone.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return false;
            }
            // The watch event can arrive before the answer to the delete: one more read on the same connection is
            // answered after it, so the deleting thread has its answer by the time this returns.
            root.checkExists().forPath(fullPath);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception e) {
            return false; // the caller logs the timeout and closes the selector anyway
        }
    }
}
