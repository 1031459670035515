package dev.leasehold.recipes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds back the deletes Curator's latch asks for while a loss is still being told, so that no node of ours goes
 * (and no other participant leads) before the listeners' {@code leadershipLost} returned.
 *
 * <p>Why: when the session ends on the client while the server still keeps it (the client gave it up first, or the
 * server has not yet expired it), Curator's latch reconnects on a new session, finds its old node, sees that the node
 * is not of its session and deletes it before creating a new one. ZooKeeper lets any session delete an ephemeral
 * node, so the old node (the one the grant was for) would go at once, and the next participant would lead while our
 * listeners were still told that we lost. The view of the client ({@link CuratorTap}) hands each background delete
 * here; it is sent at once when no loss is pending, and otherwise once every loss told before it returned (on the
 * recipe's thread and on the listeners' executors).
 *
 * <p>Bounded as {@code close()} is: a delete held longer than the close wait is sent anyway, with a WARN (a node of
 * the old session would go with that session anyway). Once the latch releases its node at close, nothing is held.
 *
 * <p>Thread-safety: thread-safe; nothing here blocks, and no user code is called.
 */
final class LatchDeletes {

    private static final Logger log = LoggerFactory.getLogger(FencedLeaderLatch.class);

    private final String participantId;
    private final Duration closeWait;
    /** Losses handed to the listeners that have not returned yet. Guarded by {@code this}. */
    private int lossesPending;
    /** Deletes waiting for those losses. Guarded by {@code this}. */
    private final List<Held> held = new ArrayList<>();
    /** Set when the latch releases its node: from then on nothing is held. Guarded by {@code this}. */
    private boolean open;

    private record Held(String path, Runnable send, AtomicBoolean sent) {
        void sendOnce() {
            if (sent.compareAndSet(false, true)) {
                send.run();
            }
        }
    }

    LatchDeletes(String participantId, Duration closeWait) {
        this.participantId = participantId;
        this.closeWait = closeWait;
    }

    /** A grant's loss is to be told: deletes asked from now on wait for it. Any thread. */
    synchronized void lossBegins() {
        lossesPending++;
    }

    /** A loss's listeners all returned (or were given up on). Any thread. */
    void lossReturned() {
        List<Held> due;
        synchronized (this) {
            lossesPending = Math.max(0, lossesPending - 1);
            if (lossesPending > 0) {
                return;
            }
            due = takeAll();
        }
        sendAll(due, "the loss was told");
    }

    /**
     * Curator asks to delete {@code path} in the background: {@code true} if the delete is held ({@code send} is run
     * later, once), {@code false} if it may go now. Called on Curator's or ZooKeeper's threads: never blocks.
     */
    boolean hold(String path, Runnable send) {
        Held delete = new Held(path, send, new AtomicBoolean());
        synchronized (this) {
            if (open || lossesPending == 0) {
                return false;
            }
            held.add(delete);
        }
        log.debug("[{}] holding the delete of {} until the loss was told", participantId, path);
        CompletableFuture.delayedExecutor(closeWait.toMillis(), TimeUnit.MILLISECONDS)
                .execute(() -> {
                    boolean late;
                    synchronized (this) {
                        late = held.remove(delete);
                    }
                    if (late) {
                        log.warn(
                                "[{}] listeners still told of a loss after {} ms; deleting {} anyway",
                                participantId,
                                closeWait.toMillis(),
                                path);
                        delete.sendOnce();
                    }
                });
        return true;
    }

    /** The latch releases its node (close): send what is held, and hold nothing from now on. */
    void open() {
        List<Held> due;
        synchronized (this) {
            open = true;
            due = takeAll();
        }
        sendAll(due, "the latch closes");
    }

    private List<Held> takeAll() {
        List<Held> due = List.copyOf(held);
        held.clear();
        return due;
    }

    private void sendAll(List<Held> due, String why) {
        for (Held delete : due) {
            log.debug("[{}] deleting {}: {}", participantId, delete.path(), why);
            delete.sendOnce();
        }
    }
}
