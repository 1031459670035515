package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.testkit.TcpProxy;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.SessionConnectionStateErrorPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An interrupt of ours never reaches Curator's release of the node. Found by the Curator matrix (5.4.0, in CI):
 * {@code ERROR LeaderSelector - The leader threw an exception}, an {@code InterruptedException} in
 * {@code LockInternals.deleteOurPath}. {@link FencedLeaderSelector#close()} read the work's thread while the work ran,
 * the work returned, Curator cleared the interrupt flag and began to delete the node, and only then did the interrupt
 * come: the delete failed, with an ERROR of Curator's, and the node was left to Curator's guaranteed delete in the
 * background. Here the test's hook holds {@code close()} between reading the thread and interrupting it until the
 * work returned and Curator's delete is in flight (the proxy keeps it there). Before the fix the interrupt then hit
 * that delete (the last assertion failed, and Curator logged the ERROR); now the work's end waits for the interrupt,
 * which Curator clears before its release.
 */
@Timeout(120)
class SelectorLateInterruptTest extends ZkTestCase {

    private static final String PATH = "/app/late-interrupt";

    @Override
    int tickMs() {
        return Zk.LONG_TICK_MS; // the session outlives the proxy's silence
    }

    @Test
    void anInterruptOfCloseNeverFailsCuratorsDeleteOfTheNode() throws Exception {
        TcpProxy proxy = closeLater(TcpProxy.to(server.getConnectString()));
        // the session's state decides, so the cut of the silenced connection (SUSPENDED) ends no leadership:
        // Curator's own interrupt at a cancelled leadership is not what this test is about
        CuratorFramework client =
                closeLater(Zk.started(TcpProxy.clientBuilder(proxy.connectString(), Zk.LONG_SESSION_MS)
                        .connectionStateErrorPolicy(new SessionConnectionStateErrorPolicy())));
        CountDownLatch leading = new CountDownLatch(1);
        CountDownLatch workMayReturn = new CountDownLatch(1);
        AtomicReference<Thread> work = new AtomicReference<>();
        FencedLeaderSelector selector = closeLater(new FencedLeaderSelector(client, PATH, "a", (c, token) -> {
            work.set(Thread.currentThread());
            leading.countDown();
            workMayReturn.await();
        }));
        selector.start();
        assertThat(leading.await(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

        AtomicBoolean deleteInFlightAtTheInterrupt = new AtomicBoolean();
        CountDownLatch interrupting = new CountDownLatch(1);
        selector.beforeWorkInterrupt = () -> {
            proxy.silence(); // Curator's delete, once sent, gets no answer
            workMayReturn.countDown();
            deleteInFlightAtTheInterrupt.set(inCuratorsDelete(work.get(), Duration.ofSeconds(2)));
            interrupting.countDown();
        };
        Thread closer = new Thread(selector::close, "closer");
        closer.start();
        assertThat(interrupting.await(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        proxy.resume(); // cuts the silenced connection: the client reconnects, its session alive
        closer.join(Zk.WAIT.toMillis());
        assertThat(closer.isAlive()).isFalse();

        Zk.awaitChildren(observer, PATH, 0); // the node is gone while the client is still open
        assertThat(client.getZookeeperClient().getZooKeeper().getState().isAlive())
                .isTrue();
        assertThat(deleteInFlightAtTheInterrupt)
                .as("the work's end waited for the interrupt, so Curator's release had not begun")
                .isFalse();
    }

    /** Waits, looking at its stack, until {@code thread} waits for the answer to Curator's delete. */
    private static boolean inCuratorsDelete(Thread thread, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            boolean deleting = Arrays.stream(thread.getStackTrace())
                    .anyMatch(frame -> frame.getClassName().endsWith("DeleteBuilderImpl"));
            if (deleting && thread.getState() == Thread.State.WAITING) {
                return true;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // a look every millisecond: no event to wait on
        }
        return false;
    }
}
