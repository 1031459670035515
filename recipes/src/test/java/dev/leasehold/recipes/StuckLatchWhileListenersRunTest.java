package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A stuck Curator latch is replaced while the recipe's thread is busy (a listener that blocks, as one may while it
 * is told of a loss): {@link ReplaceableLatch} checks and replaces on a thread of its own.
 *
 * <p>Why it matters: on Curator before 5.7.0 (CURATOR-696) a latch that got a new session leads with its old node
 * instead of creating one; only the replacement gives the participant a node of its new session. When the check ran
 * on the recipe's thread, a listener blocking in {@code leadershipLost} kept the participant without a node until it
 * returned ({@code LatchLossBeforeReleaseTest} failed so on Curator 5.4.0). Here the latch is made stuck on any
 * Curator: its node, while it follows, is deleted behind its back (a follower watches only its predecessor, so
 * Curator does not notice), and the suspicion a reconnect would raise is raised directly.
 */
@Timeout(120)
class StuckLatchWhileListenersRunTest extends ZkTestCase {

    private static final String PATH = "/app/stuck-while-busy";

    @Test
    void aStuckLatchGetsANodeOfItsSessionWhileTheRecipesThreadIsBusy() throws Exception {
        CuratorFramework clientA = closeLater(Zk.client(server.getConnectString()));
        CuratorFramework clientB = closeLater(Zk.client(server.getConnectString()));
        FencedLeaderLatch a = closeLater(new FencedLeaderLatch(clientA, PATH, "a"));
        a.start();
        assertThat(a.await(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        FencedLeaderLatch b = closeLater(new FencedLeaderLatch(clientB, PATH, "b"));
        b.start();
        Zk.awaitChildren(observer, PATH, 2);
        // b's node exists, but Curator learns its path in the create's callback. ZooKeeper answers a session's
        // requests in order and Curator runs their callbacks in order on the session's event thread, so once a probe
        // sent now on b's session is answered, the create's callback has run and the latch knows its node.
        CountDownLatch probed = new CountDownLatch(1);
        clientB.checkExists().inBackground((c, e) -> probed.countDown()).forPath(PATH);
        assertThat(probed.await(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

        ReplaceableLatch latch = (ReplaceableLatch) field(b, "latch");
        RecipeThread events = (RecipeThread) field(b, "events");
        String stuckNode = latch.getOurPath();
        assertThat(stuckNode).isNotNull();
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        events.execute(() -> {
            busy.countDown();
            try {
                // stands for a listener that blocks on the recipe's thread; released by the test
                release.await(Zk.WAIT.toMillis() * 2, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            assertThat(busy.await(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            observer.delete().forPath(stuckNode);
            latch.suspect("the test deleted Curator's node");

            Zk.awaitChildren(observer, PATH, 2); // a's node and b's new one, with b's thread still busy
            long sessionB = clientB.getZookeeperClient().getZooKeeper().getSessionId();
            List<String> children = observer.getChildren().forPath(PATH);
            assertThat(children).doesNotContain(ZKPaths.getNodeFromPath(stuckNode));
            long ofB = 0;
            for (String child : children) {
                Stat stat = observer.checkExists().forPath(ZKPaths.makePath(PATH, child));
                if (stat != null && stat.getEphemeralOwner() == sessionB) {
                    ofB++;
                }
            }
            assertThat(ofB)
                    .as("nodes of b's session while b's recipe thread is busy")
                    .isEqualTo(1);
        } finally {
            release.countDown();
        }

        // and the new latch takes part: once a leaves, b leads with a node of its session
        FencingToken aToken = a.currentToken().orElseThrow();
        a.close();
        assertThat(b.await(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        assertThat(b.currentToken().orElseThrow().value()).isGreaterThan(aToken.value());
    }

    private static Object field(FencedLeaderLatch recipe, String name) throws ReflectiveOperationException {
        Field field = FencedLeaderLatch.class.getDeclaredField(name);
        field.setAccessible(true);
        return field.get(recipe);
    }
}
