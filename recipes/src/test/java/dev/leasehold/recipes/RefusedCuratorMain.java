package dev.leasehold.recipes;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;

/**
 * Run by {@link OldCuratorRefusedTest} in a child JVM whose class path holds an old Curator: starts a latch and a
 * selector (no server is needed: the client only has to be started) and prints, one line each, how their {@code
 * start()} ended: {@code REFUSED <message>} or {@code STARTED}.
 */
final class RefusedCuratorMain {

    private RefusedCuratorMain() {}

    public static void main(String[] args) {
        try (CuratorFramework client = CuratorFrameworkFactory.newClient("127.0.0.1:1", new RetryOneTime(1))) {
            client.start();
            try (FencedLeaderLatch latch = new FencedLeaderLatch(client, "/refused/latch", "p-latch")) {
                latch.start();
                System.out.println("latch STARTED");
            } catch (IllegalStateException e) {
                System.out.println("latch REFUSED " + e.getMessage());
            }
            try (FencedLeaderSelector selector =
                    new FencedLeaderSelector(client, "/refused/selector", "p-selector", (c, token) -> {})) {
                selector.start();
                System.out.println("selector STARTED");
            } catch (IllegalStateException e) {
                System.out.println("selector REFUSED " + e.getMessage());
            }
        }
        System.out.flush();
        System.exit(0); // Curator's and ZooKeeper's threads would keep retrying 127.0.0.1:1
    }
}
