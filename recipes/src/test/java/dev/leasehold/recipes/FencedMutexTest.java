package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The contract of {@link FencedMutex}: tokens, reentrancy, timeouts, close. */
@Timeout(120)
class FencedMutexTest extends ZkTestCase {

    static final String PATH = "/app/locks/batch";

    private FencedMutex mutex(String id) throws InterruptedException {
        return closeLater(new FencedMutex(closeLater(Zk.client(server.getConnectString())), PATH, id));
    }

    private MutexHolder holder(String id) throws InterruptedException {
        return closeLater(new MutexHolder(mutex(id)));
    }

    @Test
    void theTokenIsTheCzxidOfTheHoldsOwnNodeAndEndsWithTheRelease() throws Exception {
        FencedMutex mutex = mutex("a");

        FencingToken token = mutex.acquire();

        assertThat(token.value()).isEqualTo(Zk.czxid(observer, token.path()));
        assertThat(token.participantId()).isEqualTo("a");
        assertThat(token.path()).startsWith(PATH + "/").contains("lock-");
        assertThat(mutex.currentToken()).contains(token);
        assertThat(mutex.isAcquiredInThisProcess()).isTrue();
        assertThat(mutex.isOwnedByCurrentThread()).isTrue();
        assertThat(mutex.currentHolder().orElseThrow().token()).isEqualTo(token);

        mutex.release();

        assertThat(observer.checkExists().forPath(token.path())).isNull();
        assertThat(mutex.currentToken()).isEmpty();
        assertThat(mutex.isAcquiredInThisProcess()).isFalse();
        assertThat(mutex.isOwnedByCurrentThread()).isFalse();
    }

    /** With a namespaced client the token's path is the node's full path, and a stalled hold's node is found by it. */
    @Test
    void aNamespacedClientsTokenNamesTheFullPath() throws Exception {
        var client = closeLater(Zk.client(server.getConnectString())).usingNamespace("ns");
        FencedMutex mutex = closeLater(new FencedMutex(client, PATH, "a"));
        mutex.setProgressDeadline(Duration.ofMillis(200));
        LossRecorder losses = new LossRecorder();
        mutex.addLossListener(losses, Runnable::run);

        FencingToken token = mutex.acquire();

        assertThat(token.path()).startsWith("/ns" + PATH + "/");
        assertThat(token.value()).isEqualTo(Zk.czxid(observer, token.path()));
        assertThat(losses.next().cause()).isEqualTo(LossCause.STALLED); // no progress(): the node is deleted
        Zk.awaitDeleted(observer, token.path());
        mutex.release();
    }

    @Test
    void tokensRiseAcrossHoldersAndProcesses() throws Exception {
        MutexHolder a = holder("a");
        MutexHolder b = holder("b");
        FencingToken previous = a.acquired();
        MutexHolder holding = a;
        for (int round = 0; round < 4; round++) {
            MutexHolder next = holding == a ? b : a;
            Future<FencingToken> waiting = next.acquire();
            Zk.awaitChildren(observer, PATH, 2); // the next one queues behind the holder
            assertThat(waiting.isDone()).isFalse();

            holding.release();

            FencingToken token = waiting.get(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(token.value()).as("round %d", round).isGreaterThan(previous.value());
            assertThat(token.value()).isEqualTo(Zk.czxid(observer, token.path()));
            previous = token;
            holding = next;
        }
    }

    @Test
    void threadsOfOneProcessExcludeEachOtherAndOnlyTheHolderSeesItsHold() throws Exception {
        FencedMutex mutex = mutex("shared");
        MutexHolder other = closeLater(new MutexHolder(mutex));
        FencingToken token = mutex.acquire();

        assertThat(other.acquire(Duration.ofMillis(200)).get()).isEmpty();
        assertThat(other.onThread(mutex::isOwnedByCurrentThread)).isFalse();
        assertThat(other.onThread(mutex::currentToken))
                .as("a thread that holds nothing sees the process's hold")
                .contains(token);
        assertThatThrownBy(other::release).hasCauseInstanceOf(IllegalMonitorStateException.class);

        Future<FencingToken> waiting = other.acquire();
        mutex.release();
        assertThat(waiting.get(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS).value())
                .isGreaterThan(token.value());
        assertThat(mutex.isOwnedByCurrentThread()).isFalse();
        assertThat(mutex.isAcquiredInThisProcess()).isTrue();
        other.release();
    }

    @Test
    void reentrantPerThreadTheOutermostReleaseFreesIt() throws Exception {
        FencedMutex mutex = mutex("a");
        FencingToken outer = mutex.acquire();
        assertThat(mutex.acquire()).isEqualTo(outer);
        assertThat(mutex.acquire(Duration.ZERO)).contains(outer);
        Zk.awaitChildren(observer, PATH, 1);

        mutex.release();
        mutex.release();
        assertThat(mutex.currentToken()).contains(outer);
        assertThat(observer.checkExists().forPath(outer.path())).isNotNull();

        mutex.release();
        assertThat(observer.checkExists().forPath(outer.path())).isNull();
        assertThat(mutex.currentToken()).isEmpty();
        assertThatThrownBy(mutex::release)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("You do not own the lock: " + PATH);
    }

    @Test
    void aTimedAcquireOfALockHeldElsewhereReturnsEmptyAndLeavesNoNode() throws Exception {
        MutexHolder a = holder("a");
        FencingToken held = a.acquired();
        FencedMutex b = mutex("b");

        assertThat(b.acquire(Duration.ZERO)).isEmpty();
        assertThat(b.acquire(Duration.ofMillis(300))).isEmpty();

        Zk.awaitChildren(observer, PATH, 1);
        assertThat(b.currentToken()).isEmpty();
        assertThatThrownBy(b::release).isInstanceOf(IllegalMonitorStateException.class);
        a.release();
        Optional<FencingToken> next = b.acquire(Zk.WAIT);
        assertThat(next).isPresent();
        assertThat(next.get().value()).isGreaterThan(held.value());
        b.release();
    }

    @Test
    void closeReleasesTheCallersHoldTellsListenersAndIsIdempotent() throws Exception {
        FencedMutex mutex = mutex("a");
        LossRecorder losses = new LossRecorder();
        mutex.addLossListener(losses, Runnable::run);
        FencingToken token = mutex.acquire();
        mutex.acquire(); // nested: close releases it whole

        mutex.close();
        mutex.close();

        Zk.awaitDeleted(observer, token.path());
        LossRecorder.Loss loss = losses.next();
        assertThat(loss.token()).isEqualTo(token);
        assertThat(loss.cause()).isEqualTo(LossCause.CLOSED);
        assertThat(mutex.currentToken()).isEmpty();
        assertThat(mutex.isAcquiredInThisProcess()).isFalse();
        assertThatThrownBy(mutex::acquire)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(mutex::release).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void closeEndsAnotherThreadsHoldDeletesItsNodeAndItsReleaseDoesNotThrow() throws Exception {
        FencedMutex mutex = mutex("a");
        MutexHolder worker = closeLater(new MutexHolder(mutex));
        LossRecorder losses = new LossRecorder();
        mutex.addLossListener(losses, Runnable::run);
        FencingToken token = worker.acquired();

        mutex.close();

        assertThat(losses.next().cause()).isEqualTo(LossCause.CLOSED);
        Zk.awaitDeleted(observer, token.path());
        assertThat(worker.onThread(mutex::currentToken)).isEmpty();
        worker.release(); // no exception: the hold was ended by the close
        FencedMutex next = mutex("b");
        assertThat(next.acquire().value()).isGreaterThan(token.value());
        next.release();
    }

    @Test
    void aRemovedListenerIsNotTold() throws Exception {
        FencedMutex mutex = mutex("a");
        LossRecorder removed = new LossRecorder();
        LossRecorder kept = new LossRecorder();
        mutex.addLossListener(removed, Runnable::run);
        mutex.addLossListener(kept, Runnable::run);
        mutex.removeLossListener(removed);
        mutex.acquire();

        mutex.close();

        assertThat(kept.next().cause()).isEqualTo(LossCause.CLOSED);
        assertThat(removed.isEmpty()).isTrue();
    }

    @Test
    void badInputIsRefusedWithAClearMessage() throws Exception {
        var client = closeLater(Zk.client(server.getConnectString()));
        assertThatThrownBy(() -> new FencedMutex(null, PATH))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("client must not be null");
        assertThatThrownBy(() -> new FencedMutex(client, "locks/batch"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("path 'locks/batch' is not a valid ZooKeeper path");
        assertThatThrownBy(() -> new FencedMutex(client, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("path");
        assertThatThrownBy(() -> new FencedMutex(client, "/")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FencedMutex(client, PATH, " "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("participantId");
        FencedMutex mutex = closeLater(new FencedMutex(client, PATH));
        assertThatThrownBy(() -> mutex.addLossListener(null, Runnable::run))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("listener must not be null");
        assertThatThrownBy(() -> mutex.addLossListener((t, c) -> {}, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("executor must not be null");
        assertThatThrownBy(() -> mutex.acquire(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeout must be zero or more");
        assertThatThrownBy(() -> mutex.acquire(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeout must not be null");
        assertThatThrownBy(() -> mutex.setProgressDeadline(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThat(observer.checkExists().forPath(PATH)).as("nothing written").isNull();
        assertThat(mutex.participantId()).startsWith("mutex-");
    }

    @Test
    void anUnstartedClientIsRefusedAtAcquire() throws Exception {
        var unstarted = closeLater(Zk.builder(server.getConnectString()).build());
        FencedMutex mutex = closeLater(new FencedMutex(unstarted, PATH, "a"));
        assertThatThrownBy(mutex::acquire)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("call client.start()");
    }
}
