package dev.leasehold.recipes;

import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Curator {@link LeaderLatch} a {@link FencedLeaderLatch} wraps, replaced by a fresh one when it is stuck.
 *
 * <p>Curator's latches before 5.8.0 can stop taking part in the election for good after an outage, and nothing in
 * Curator brings them back:
 * <ul>
 *   <li>before 5.7.0 (CURATOR-696), after a reconnect with a new session the latch can lead with its old node, a
 *       node of the expired session that the server then deletes; it leads on with a node that is gone (the recipe
 *       hands out no token for it: the owner is checked) and never creates another;</li>
 *   <li>before 5.8.0 (CURATOR-724), if the election's path is gone when the latch reconnects (the server was rebuilt
 *       with empty data, or the container parent was reaped), its listing fails with NONODE and it stays without a
 *       node.</li>
 * </ul>
 * The recipe owns the latch, so it notices and replaces it: on every suspicion (a reconnect, a listing that found
 * no election path, a grant refused because Curator's node is not our session's or is gone) it looks again {@link
 * #CHECK_DELAY} later, on a thread of its own. If Curator's node is then still the one it had at the
 * suspicion, and that node is missing or owned by another session (or Curator still has no node), the latch is
 * stuck: it is closed (which deletes its node, if any) and a new one is started with the same path and id; it
 * joins the election as a new participant would, and its grants go through the same checks as every grant (token
 * rules unchanged). The check costs one read per suspicion. It is on for every Curator version: on one without
 * these defects, Curator moves on before the check and nothing is replaced; at worst a latch that was about to
 * recover by itself is replaced, which costs one node.
 *
 * <p>Why a thread of its own, not the recipe's: the recipe's thread runs the listeners, and a listener may block
 * while it is told of a loss (the loss of the session that left the latch stuck, say). Curator 5.7 and later leave
 * the old node and join again on Curator's own threads meanwhile; an older Curator's stuck latch must be replaced
 * meanwhile too, or the participant has no node of its new session until the listener returned, and if that takes
 * longer than the server keeps the old session, the old node goes with it and the next participant leads while our
 * listener is still told. The stuck latch's delete of its old node is still held until the loss returned ({@link
 * LatchDeletes}): only the new node is created at once.
 *
 * <p>Not a copy of Curator: it only calls Curator's public API (start, close, getOurPath, hasLeadership).
 *
 * <p>Thread-safety: thread-safe. Callbacks from a replaced latch are dropped. {@link #start()}, {@link #close()}
 * and the replacement exclude one another; none of them calls user code.
 */
final class ReplaceableLatch {

    /** How long after a suspicion the latch is looked at again; a healthy Curator has moved on by then. */
    static final Duration CHECK_DELAY = Duration.ofSeconds(2);

    private static final Logger log = LoggerFactory.getLogger(ReplaceableLatch.class);

    /** What the wrapping recipe is told. Called on Curator's, the check or the recipe's thread: must not block. */
    interface Owner {
        /** The current latch reports leadership. */
        void isLeader();

        /** The current latch reports leadership lost. */
        void notLeader();

        /**
         * A latch was replaced: whatever was granted from it is void (the new latch, already current, may lead). Called
         * on the thread that replaced it (the check thread, or the recipe's thread for {@link #rejoin}).
         */
        void replaced(String why);
    }

    private final CuratorFramework client;
    private final CuratorFramework tapped;
    private final String latchPath;
    private final String participantId;
    private final Owner owner;
    private final Executor checkThread;
    private final Object lifecycle = new Object();
    private final AtomicReference<LeaderLatch> current = new AtomicReference<>();
    /** The latch a check is already pending for (one at a time per latch). */
    private final AtomicReference<LeaderLatch> checkPending = new AtomicReference<>();

    private boolean started;
    private boolean closed;

    /**
     * @param client        the user's client: the checks read through it
     * @param tapped        the view of the client Curator's latches are built on ({@link CuratorTap})
     * @param checkThread   where checks and the replacements they decide run: not the thread the listeners run on
     */
    ReplaceableLatch(
            CuratorFramework client,
            CuratorFramework tapped,
            String latchPath,
            String participantId,
            Owner owner,
            Executor checkThread) {
        this.client = client;
        this.tapped = tapped;
        this.latchPath = latchPath;
        this.participantId = participantId;
        this.owner = owner;
        this.checkThread = checkThread;
        this.current.set(newLatch());
    }

    private LeaderLatch newLatch() {
        LeaderLatch latch = new LeaderLatch(tapped, latchPath, participantId);
        latch.addListener(
                new LeaderLatchListener() {
                    @Override
                    public void isLeader() {
                        if (current.get() == latch) {
                            owner.isLeader();
                        }
                    }

                    @Override
                    public void notLeader() {
                        if (current.get() == latch) {
                            owner.notLeader();
                        }
                    }
                },
                Runnable::run); // the owner only hands work to its thread or swaps a reference
        return latch;
    }

    /** The Curator latch in use now (tests drive Curator's own debug hooks through it). */
    LeaderLatch current() {
        return current.get();
    }

    /** @see LeaderLatch#hasLeadership() */
    boolean hasLeadership() {
        return current.get().hasLeadership();
    }

    /** @see LeaderLatch#getLastPathIsLeader() */
    String getLastPathIsLeader() {
        return current.get().getLastPathIsLeader();
    }

    /** @see LeaderLatch#getOurPath() */
    String getOurPath() {
        return current.get().getOurPath();
    }

    /** Starts the current latch; at most once, and never after {@link #close()}. */
    void start() throws Exception {
        synchronized (lifecycle) {
            if (started || closed) {
                return;
            }
            started = true;
            current.get().start();
        }
    }

    /** Closes the current latch (its node is deleted in the background); no replacement happens after this. */
    void close() throws IOException {
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
            if (started) {
                current.get().close();
            }
        }
    }

    /**
     * Something happened after which an older Curator's latch can be stuck: look again {@link #CHECK_DELAY} later.
     * Any thread; never blocks.
     *
     * @param why what happened, for the log
     */
    void suspect(String why) {
        LeaderLatch latch = current.get();
        if (!checkPending.compareAndSet(null, latch)) {
            return; // a check is already on its way
        }
        String pathThen = latch.getOurPath();
        later(() -> check(latch, pathThen, why, 0));
    }

    private void later(Runnable check) {
        CompletableFuture.delayedExecutor(CHECK_DELAY.toMillis(), TimeUnit.MILLISECONDS, checkThread)
                .execute(check);
    }

    /**
     * On the recipe's thread: leaves the election and joins it again at the back of the queue (the current latch is
     * closed, which deletes its node, and a new one starts), e.g. after the leader stalled past its progress
     * deadline. The owner is told {@code replaced}. Does nothing once closed or before start.
     *
     * @param why what happened, for the log
     */
    void rejoin(String why) {
        LeaderLatch latch;
        synchronized (lifecycle) {
            if (closed || !started) {
                return;
            }
            latch = current.get();
        }
        replace(latch, why, false);
    }

    /** On the check thread: replaces {@code latch} if it is still current and still stuck. */
    private void check(LeaderLatch latch, String pathThen, String why, int round) {
        checkPending.compareAndSet(latch, null);
        synchronized (lifecycle) {
            if (closed || !started || current.get() != latch) {
                return;
            }
        }
        if (!ElectionNodes.isConnected(client)) {
            return; // RECONNECTED raises the next suspicion
        }
        String path = latch.getOurPath();
        if (!Objects.equals(path, pathThen)) {
            if (path == null && round == 0 && checkPending.compareAndSet(null, latch)) {
                later(() -> check(latch, null, why, 1)); // between deleting its node and creating one: look again
            }
            return; // Curator moved on: it is not stuck
        }
        String stuck = whyStuck(path);
        if (stuck == null) {
            return;
        }
        if (path == null && round == 0) {
            if (checkPending.compareAndSet(null, latch)) {
                later(() -> check(latch, null, why, 1)); // no node yet: give a slow create one more delay
            }
            return;
        }
        replace(latch, why + ", then " + stuck, true);
    }

    /** Why Curator's node {@code path} cannot lead, or {@code null} if it can. One read. */
    private String whyStuck(String path) {
        if (path == null) {
            return "Curator's latch has had no node for " + CHECK_DELAY.toMillis() + " ms";
        }
        Stat stat;
        try {
            stat = client.checkExists().forPath(path);
        } catch (Exception e) {
            log.debug(
                    "[{}] could not check Curator's node {}; the next suspicion checks again", participantId, path, e);
            return null;
        }
        long session = ElectionNodes.sessionId(client);
        if (stat == null) {
            return "Curator's node " + path + " has been gone for " + CHECK_DELAY.toMillis() + " ms";
        }
        if (stat.getEphemeralOwner() != session) {
            return "Curator's node " + path + " belongs to session 0x" + Long.toHexString(stat.getEphemeralOwner())
                    + ", not to ours (0x" + Long.toHexString(session) + ")";
        }
        return null;
    }

    private void replace(LeaderLatch stuck, String why, boolean curatorDefect) {
        synchronized (lifecycle) {
            if (closed || current.get() != stuck) {
                return;
            }
            if (curatorDefect) {
                log.warn(
                        "[{}] Curator's latch on {} is stuck ({}); replacing it with a new one (a defect of Curator"
                                + " before 5.8.0: see CURATOR-696 and CURATOR-724)",
                        participantId,
                        latchPath,
                        why);
            } else {
                log.info("[{}] leaving the election on {} and joining it again: {}", participantId, latchPath, why);
            }
            LeaderLatch fresh = newLatch();
            current.set(fresh); // from here on, the stuck latch's callbacks are dropped
            try {
                stuck.close(); // deletes its node, if it still has one
            } catch (IOException | RuntimeException e) {
                log.warn(
                        "[{}] closing the stuck Curator latch failed; its node goes with its session",
                        participantId,
                        e);
            }
            try {
                fresh.start();
            } catch (Exception e) {
                log.warn("[{}] could not start the new Curator latch on {}", participantId, latchPath, e);
            }
        }
        owner.replaced(why); // voids the stuck latch's grant, if any; a grant of the fresh latch's node stays
    }
}
