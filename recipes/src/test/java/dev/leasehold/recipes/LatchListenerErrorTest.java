package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Watcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A recipe thread survives what it runs: one {@code Error} in a listener must not stop the latch.
 *
 * <p>Timeline: the latch leads; its listener throws {@code StackOverflowError} on that grant; a connection blip
 * (ZooKeeper's client reports Disconnected, then SyncConnected: SUSPENDED, RECONNECTED); the listener must hear the
 * loss and the next grant; close() tells it CLOSED. Before the fix the recipe's thread died with the Error and
 * nothing was told again: the latch never took a token again and close() waited its whole close wait.
 */
@Timeout(60)
class LatchListenerErrorTest extends ZkTestCase {

    /** The session outlives the simulated blip: it stays the same session. */
    @Override
    int tickMs() {
        return Zk.LONG_TICK_MS;
    }

    @Test
    void anErrorInAListenerIsLoggedAndTheLatchCarriesOn() throws Exception {
        CuratorFramework client =
                closeLater(Zk.started(Zk.builder(server.getConnectString()).sessionTimeoutMs(Zk.LONG_SESSION_MS)));
        BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        AtomicBoolean thrown = new AtomicBoolean();
        FencedLeaderLatch latch = closeLater(new FencedLeaderLatch(client, "/app/error", "e"));
        latch.addListener(new FencedLeaderListener() {
            @Override
            public void leadershipAcquired(FencingToken token) {
                heard.add("acquired " + token.value());
                if (thrown.compareAndSet(false, true)) {
                    throw new StackOverflowError("a listener's Error (expected in this test)");
                }
            }

            @Override
            public void leadershipLost(FencingToken token, LossCause cause) {
                heard.add("lost " + token.value() + " " + cause);
            }
        });
        latch.start();
        String first = next(heard);
        assertThat(first).startsWith("acquired ");
        String token = first.substring("acquired ".length());

        SelectorSuspendedGrantTest.zooKeeperSays(client, Watcher.Event.KeeperState.Disconnected);
        assertThat(next(heard)).isEqualTo("lost " + token + " SUSPENDED");
        SelectorSuspendedGrantTest.zooKeeperSays(client, Watcher.Event.KeeperState.SyncConnected);
        assertThat(next(heard)).as("the same node's token again").isEqualTo("acquired " + token);
        assertThat(latch.currentToken().map(FencingToken::value)).contains(Long.parseLong(token));

        latch.close();
        assertThat(heard.poll()).as("told on close, before close() returned").isEqualTo("lost " + token + " CLOSED");
    }

    private static String next(BlockingQueue<String> heard) throws InterruptedException {
        String event = heard.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(event).as("a listener call within %s", Zk.WAIT).isNotNull();
        return event;
    }
}
