package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.testkit.TcpProxy;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.SessionConnectionStateErrorPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A {@link FencedMutex} hold ends at once on SUSPENDED and LOST (CURATOR-206, CURATOR-604: Curator's mutex never tells
 * its holder), its listeners hear why, off Curator's threads, and {@code release()} afterwards removes the node and does
 * not throw (CURATOR-678).
 *
 * <p>Sessions are long here (8 s on a 500 ms tick) where a session must survive a reconnect.
 */
@Timeout(120)
class MutexLossTest extends ZkTestCase {

    private static final String PATH = "/app/locks/loss";

    @Override
    int tickMs() {
        return Zk.LONG_TICK_MS;
    }

    private CuratorFramework longClient(String connectString) throws InterruptedException {
        return closeLater(Zk.started(Zk.builder(connectString).sessionTimeoutMs(Zk.LONG_SESSION_MS)));
    }

    /** A recorder that also notes what the mutex said of the hold when the listener ran. */
    private static final class Seen implements FencedLossListener {
        final LossRecorder recorder = new LossRecorder();
        final AtomicReference<Boolean> acquiredWhenTold = new AtomicReference<>();
        FencedMutex mutex;

        @Override
        public void lost(FencingToken token, LossCause cause) {
            acquiredWhenTold.compareAndSet(null, mutex.isAcquiredInThisProcess());
            recorder.lost(token, cause);
        }
    }

    private Seen listen(FencedMutex mutex) {
        Seen seen = new Seen();
        seen.mutex = mutex;
        mutex.addLossListener(seen, Runnable::run); // a direct executor: still never a Curator thread
        return seen;
    }

    /**
     * Timeline: a holds; its session expires (client side: the server keeps the node until its own timeout); the hold
     * ends with LOST at once; a nested acquire refuses; a's release deletes the node without throwing; b then holds with
     * a higher token.
     */
    @Test
    void sessionExpiryEndsTheHoldAndReleaseRemovesTheNodeWithoutThrowing() throws Exception {
        CuratorFramework a = closeLater(Zk.client(server.getConnectString()));
        FencedMutex mutex = closeLater(new FencedMutex(a, PATH, "a"));
        Seen seen = listen(mutex);
        FencingToken token = mutex.acquire();

        a.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();

        LossRecorder.Loss loss = seen.recorder.next();
        assertThat(loss.token()).isEqualTo(token);
        assertThat(loss.cause()).isEqualTo(LossCause.LOST);
        assertThat(loss.thread()).startsWith("leasehold-mutex-a");
        assertThat(seen.acquiredWhenTold.get())
                .as("withdrawn before the listener ran")
                .isFalse();
        assertThat(mutex.currentToken()).isEmpty();
        assertThat(mutex.isOwnedByCurrentThread()).isFalse();
        assertThat(mutex.acquire(Duration.ZERO))
                .as("a nested acquire after the loss")
                .isEmpty();
        assertThatThrownBy(mutex::acquire)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lost");

        mutex.release();

        Zk.awaitDeleted(observer, token.path());
        FencedMutex b = closeLater(new FencedMutex(closeLater(Zk.client(server.getConnectString())), PATH, "b"));
        assertThat(b.acquire().value()).isGreaterThan(token.value());
        assertThat(mutex.acquire(Duration.ofMillis(100)))
                .as("a queues behind b")
                .isEmpty();
        b.release();
        assertThat(mutex.acquire().value()).as("a holds again, with a new node").isGreaterThan(token.value());
        mutex.release();
    }

    /**
     * Timeline: a holds; the server stops (SUSPENDED): the hold ends at once; the server comes back within the session,
     * so a's node is still there; a's release deletes it and does not throw; a then holds again with a new node.
     */
    @Test
    void aSuspendedConnectionEndsTheHoldAndTheReleaseAfterReconnectDeletesTheNode() throws Exception {
        CuratorFramework a = longClient(server.getConnectString());
        FencedMutex mutex = closeLater(new FencedMutex(a, PATH, "a"));
        Seen seen = listen(mutex);
        FencingToken token = mutex.acquire();
        CountDownLatch reconnected = new CountDownLatch(1);
        a.getConnectionStateListenable().addListener((c, state) -> {
            if (state == ConnectionState.RECONNECTED) {
                reconnected.countDown();
            }
        });

        server.stop();
        LossRecorder.Loss loss = seen.recorder.next();
        assertThat(loss.cause()).isEqualTo(LossCause.SUSPENDED);
        assertThat(loss.token()).isEqualTo(token);
        assertThat(mutex.currentToken()).isEmpty();
        server.restart();
        assertThat(reconnected.await(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        assertThat(observer.checkExists().forPath(token.path()))
                .as("the session survived")
                .isNotNull();
        assertThat(mutex.currentToken())
                .as("a reconnect does not give a lost hold back")
                .isEmpty();

        mutex.release();

        assertThat(observer.checkExists().forPath(token.path())).isNull();
        FencingToken again = mutex.acquire();
        assertThat(again.value()).isGreaterThan(token.value());
        mutex.release();
        assertThat(seen.recorder.isEmpty()).as("a release is not a loss").isTrue();
    }

    /**
     * CURATOR-678: a release while ZooKeeper is unreachable. Timeline: a holds; the server stops (SUSPENDED); a releases
     * while it is down: no exception; the server comes back within the session and a's node is deleted then, so b is
     * granted (with a higher token) instead of queueing for ever behind a node nobody holds.
     */
    @Test
    void aReleaseWhileZooKeeperIsDownDeletesTheNodeOnceItIsBack() throws Exception {
        CuratorFramework a = longClient(server.getConnectString());
        FencedMutex mutex = closeLater(new FencedMutex(a, PATH, "a"));
        Seen seen = listen(mutex);
        FencingToken token = mutex.acquire();

        server.stop();
        assertThat(seen.recorder.next().cause()).isEqualTo(LossCause.SUSPENDED);
        mutex.release(); // Curator's delete fails: logged, not thrown

        assertThat(mutex.isOwnedByCurrentThread()).isFalse();
        assertThatThrownBy(mutex::release).isInstanceOf(IllegalMonitorStateException.class);
        server.restart();
        Zk.awaitDeleted(observer, token.path());
        FencedMutex b = closeLater(new FencedMutex(longClient(server.getConnectString()), PATH, "b"));
        Optional<FencingToken> tB = b.acquire(Zk.WAIT);
        assertThat(tB).isPresent();
        assertThat(tB.get().value()).isGreaterThan(token.value());
        b.release();
    }

    /**
     * Timeline: thread a holds; the session expires (a's hold LOST, a does not release yet); thread b of the same
     * process is granted once the server drops a's node. On a's thread, currentToken() stays empty: a thread whose hold
     * was lost is never answered with another thread's (higher) token, which would let its late writes through.
     */
    @Test
    void aThreadWhoseHoldWasLostNeverSeesAnotherThreadsToken() throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        FencedMutex mutex = closeLater(new FencedMutex(client, PATH, "shared"));
        Seen seen = listen(mutex);
        FencingToken tA = mutex.acquire();
        client.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
        assertThat(seen.recorder.next().cause()).isEqualTo(LossCause.LOST);

        MutexHolder b = closeLater(new MutexHolder(mutex));
        FencingToken tB = b.acquired(); // once the server expired the old session and dropped a's node

        assertThat(tB.value()).isGreaterThan(tA.value());
        assertThat(b.onThread(mutex::currentToken)).contains(tB);
        assertThat(mutex.currentToken()).as("on a's thread").isEmpty();
        assertThat(mutex.isOwnedByCurrentThread()).isFalse();
        assertThat(mutex.isAcquiredInThisProcess()).isTrue();
        mutex.release();
        assertThat(b.onThread(mutex::currentToken))
                .as("a's release leaves b's hold alone")
                .contains(tB);
        b.release();
    }

    /** With SessionConnectionStateErrorPolicy a SUSPENDED connection keeps the hold; the session's loss ends it. */
    @Test
    void theSessionErrorPolicyKeepsTheHoldWhileSuspended() throws Exception {
        CuratorFramework a = closeLater(Zk.started(Zk.builder(server.getConnectString())
                .sessionTimeoutMs(Zk.LONG_SESSION_MS)
                .connectionStateErrorPolicy(new SessionConnectionStateErrorPolicy())));
        FencedMutex mutex = closeLater(new FencedMutex(a, PATH, "a"));
        Seen seen = listen(mutex);
        FencingToken token = mutex.acquire();
        CountDownLatch suspended = new CountDownLatch(1);
        a.getConnectionStateListenable().addListener((c, state) -> {
            if (state == ConnectionState.SUSPENDED) {
                suspended.countDown();
            }
        });

        server.stop();
        assertThat(suspended.await(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        assertThat(mutex.currentToken()).contains(token);
        a.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
        assertThat(seen.recorder.next().cause()).isEqualTo(LossCause.LOST);
        assertThat(mutex.currentToken()).isEmpty();
        server.restart();
        mutex.release();
    }

    /**
     * A partition (the test kit's proxy goes silent): a hears SUSPENDED at once, the server expires a's session and b
     * holds with a higher token; after the partition heals, a's release does not throw.
     */
    @Test
    void aPartitionedHolderLosesItsHoldAndTheNextHolderHasAHigherToken() throws Exception {
        TcpProxy proxy = closeLater(TcpProxy.to(server.getConnectString()));
        CuratorFramework a = closeLater(Zk.started(TcpProxy.clientBuilder(proxy.connectString(), 2_000)));
        FencedMutex mutexA = closeLater(new FencedMutex(a, PATH, "a"));
        Seen seen = listen(mutexA);
        FencingToken tA = mutexA.acquire();
        MutexHolder b = closeLater(
                new MutexHolder(new FencedMutex(closeLater(Zk.client(server.getConnectString())), PATH, "b")));
        Future<FencingToken> bWaits = b.acquire();
        Zk.awaitChildren(observer, PATH, 2);

        proxy.silence();

        assertThat(seen.recorder.next().cause()).isEqualTo(LossCause.SUSPENDED);
        assertThat(mutexA.currentToken()).isEmpty();
        FencingToken tB = bWaits.get(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS); // once the server expired a
        assertThat(tB.value()).isGreaterThan(tA.value());
        proxy.resume();
        mutexA.release(); // no exception: the node went with the session
        assertThat(observer.checkExists().forPath(tA.path())).isNull();
        assertThat(b.onThread(() -> b.mutex.currentToken())).contains(tB);
        b.release();
    }

    /** A listener that throws is logged; the other listeners are still told. */
    @Test
    void aThrowingListenerDoesNotStopTheOthers() throws Exception {
        FencedMutex mutex = closeLater(new FencedMutex(closeLater(Zk.client(server.getConnectString())), PATH, "a"));
        mutex.addLossListener(
                (token, cause) -> {
                    throw new IllegalStateException("a listener's bug");
                },
                Runnable::run);
        LossRecorder after = new LossRecorder();
        mutex.addLossListener(after, Runnable::run);
        FencingToken token = mutex.acquire();

        mutex.close();

        LossRecorder.Loss loss = after.next();
        assertThat(loss.token()).isEqualTo(token);
        assertThat(loss.cause()).isEqualTo(LossCause.CLOSED);
    }

    /**
     * Timeline: a holds with a 300 ms progress deadline and never calls progress(); b waits. a's hold ends (STALLED),
     * its node is deleted, b holds with a higher token; a's release does not throw. A holder that progresses keeps
     * its hold past the deadline.
     */
    @Test
    void aHolderThatStopsProgressingGivesTheHoldUp() throws Exception {
        CuratorFramework a = longClient(server.getConnectString());
        FencedMutex mutexA = closeLater(new FencedMutex(a, PATH, "a"));
        mutexA.setProgressDeadline(Duration.ofMillis(300));
        assertThat(mutexA.progressDeadline()).contains(Duration.ofMillis(300));
        Seen seen = listen(mutexA);

        FencingToken progressing = mutexA.acquire();
        for (int i = 0; i < 10; i++) {
            Thread.sleep(100); // stands for a slice of the holder's work
            mutexA.progress();
        }
        assertThat(mutexA.currentToken())
                .as("a holder that progresses keeps its hold")
                .contains(progressing);
        assertThat(mutexA.sinceProgress()).isPresent();
        mutexA.release();
        assertThat(mutexA.sinceProgress()).isEmpty();

        FencingToken stuck = mutexA.acquire();
        MutexHolder b = closeLater(new MutexHolder(new FencedMutex(longClient(server.getConnectString()), PATH, "b")));
        Future<FencingToken> bWaits = b.acquire();

        LossRecorder.Loss loss = seen.recorder.next();
        assertThat(loss.cause()).isEqualTo(LossCause.STALLED);
        assertThat(loss.token()).isEqualTo(stuck);
        assertThat(mutexA.currentToken()).isEmpty();
        FencingToken tB = bWaits.get(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(tB.value()).isGreaterThan(stuck.value());
        mutexA.release();
        Optional<FencingToken> bStill = b.onThread(() -> b.mutex.currentToken());
        assertThat(bStill).contains(tB);
        b.release();
    }
}
