package dev.leasehold.recipes;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Curator's {@link LeaderLatch}, handing the leader a {@link FencingToken} it can send with every write.
 *
 * <p>The election is Curator's, unchanged: each participant creates a protected ephemeral-sequential node under
 * {@code latchPath}; the lowest leads; each follower watches only its predecessor, so a leader change wakes
 * exactly one follower. This class adds no watch and, normally, no request of its own.
 *
 * <p>How a grant becomes a token (level-triggered: re-checked on every report Curator gets, on RECONNECTED,
 * whenever Curator's leading node changes, and, while Curator leads with a node whose token we do not hold, on the
 * recipe's own thread at a doubling interval of at most 1 s, so the level is reached even
 * when the view sees none of Curator's answers):
 * <ol>
 *   <li>Curator is given a view of the client ({@link CuratorTap}) that shows this recipe the answers Curator gets.
 *       The answer to the create carries the new node's Stat (czxid, ephemeralOwner): kept, by the node's full
 *       protected path, while the node is still following. No round trip at grant.</li>
 *   <li>When Curator leads with node P ({@code getLastPathIsLeader()}), the recipe's own thread checks: P is still
 *       Curator's own node ({@code getOurPath()}: Curator 5.9.0 can report leadership for a node it already
 *       replaced), P's owner is the client's current session (a node of an older session is not ours), and grants
 *       the token {@code czxid(P)}. P was the lowest child when Curator checked it; a lower sequence is never created
 *       later, so no other check is needed. If P's Stat was not seen, it is read once (one round trip).</li>
 *   <li>A loss that raced the check voids it (the grant is swapped by compareAndSet).</li>
 * </ol>
 *
 * <p>How a grant ends: on SUSPENDED (under Curator's default error policy) and on LOST the token is withdrawn at
 * once, on the thread that delivers the state change ({@link #currentToken()} becomes empty, {@link
 * #hasLeadership()} false), then listeners are told {@code leadershipLost} with a {@link LossCause}. If the session
 * survives, Curator re-grants on RECONNECTED and the same node yields the same token value. No node of ours is
 * deleted before the losses told so far returned: if the session ended on the client while the server still keeps
 * it, Curator's latch deletes its old node on the new session (before 5.7.0 it leads with the old node instead, and
 * the recipe replaces it, which deletes that node: see below); that delete is held back until then ({@link
 * LatchDeletes}, bounded by the close wait), so no other participant leads while a listener is still told, as long as
 * the server keeps the old session.
 *
 * <p>Curator 5.4.0 to 5.9.0 are supported (older ones are refused at {@link #start()}). A Curator latch that an
 * older Curator leaves stuck after an outage (CURATOR-696, CURATOR-724: leading with a node of an expired session, or
 * left without a node) is noticed and replaced by a fresh one with the same path and id, whose grants pass the same
 * checks ({@link ReplaceableLatch}, on a thread of its own, so a listener that blocks does not delay it); see {@code
 * docs/curator-compatibility.md}.
 *
 * <p>IMPORTANT: {@code hasLeadership()} is a belief, not a guarantee. A paused process (GC, frozen VM) keeps
 * believing it leads until it runs again and sees the state change; another participant may lead meanwhile. Only
 * the resource's token check stops the stale leader's writes: "check {@code hasLeadership()}, then write" is always
 * a race.
 *
 * <p>Thread-safety: thread-safe. Listeners run on the recipe's own thread (a thread that ends after {@link
 * RecipeThread#KEEP_ALIVE} idle, so an idle latch holds no thread) or on the executor given with them.
 *
 * <p>Why one file of more than 300 lines: the recipe is meant to be copied into a Curator codebase as its own files
 * plus the token type, so its lifecycle and close stay here; the grant (how a grant becomes a token and how it ends)
 * is in {@code LatchGrants}.
 */
public final class FencedLeaderLatch implements Closeable {

    /** How long {@link #close()} waits, by default, for listeners to finish before releasing the node. */
    public static final long CLOSE_WAIT_MILLIS = 10_000;

    private static final Logger log = LoggerFactory.getLogger(FencedLeaderLatch.class);

    private enum Lifecycle {
        LATENT,
        STARTED,
        CLOSED
    }

    private final CuratorFramework client;
    private final String latchPath;
    private final String participantId;
    private final Duration closeWait;
    /** Curator's latch, replaced by a fresh one if an older Curator leaves it stuck (see {@link ReplaceableLatch}). */
    private final ReplaceableLatch latch;
    /** The progress deadline (off unless set); see {@link #setProgressDeadline(Duration)}. */
    private final ProgressWatch progress = new ProgressWatch(this::onStalled);

    private final AtomicReference<Lifecycle> lifecycle = new AtomicReference<>(Lifecycle.LATENT);
    /** The recipe's own thread: grants and listener calls happen here, in order. */
    private final RecipeThread events;
    /**
     * Where {@link ReplaceableLatch} looks at Curator's latch and replaces a stuck one: not {@link #events}, which a
     * listener may block while it is told of the very loss after which an older Curator's latch is stuck.
     */
    private final RecipeThread checks;

    private final LatchListeners listeners;
    /** Curator's deletes of our nodes, held back while a loss is being told (see {@link LatchDeletes}). */
    private final LatchDeletes deletes;
    /** The grant: how Curator's leadership becomes a token and how it ends (see {@link LatchGrants}). */
    private final LatchGrants grants;
    /** Guards Curator's start and close against each other (never held while calling user code). */
    private final Object curatorLifecycle = new Object();

    private boolean curatorStarted;
    private boolean released;
    /** {@link #await} waits on this monitor; it is held only to signal, never while calling anyone's code. */
    private final Object leadershipChanged = new Object();

    private final ConnectionStateListener connectionListener = (c, state) -> onConnectionStateChanged(state);

    /**
     * @param client        a Curator client; it must be started before {@link #start()}
     * @param latchPath     the election path, e.g. {@code /app/leader}; its nodes get the client's ACLs
     * @param participantId this participant's id, stored as its node's data; make it unique per participant
     */
    public FencedLeaderLatch(CuratorFramework client, String latchPath, String participantId) {
        this(client, latchPath, participantId, Duration.ofMillis(CLOSE_WAIT_MILLIS));
    }

    /**
     * @param client        a Curator client; it must be started before {@link #start()}
     * @param latchPath     the election path, e.g. {@code /app/leader}; its nodes get the client's ACLs
     * @param participantId this participant's id, stored as its node's data; make it unique per participant
     * @param closeWait     how long {@link #close()} waits for listeners to return before it releases the node
     *                      anyway; more than 0 and at most one hour
     */
    public FencedLeaderLatch(CuratorFramework client, String latchPath, String participantId, Duration closeWait) {
        this(client, latchPath, participantId, closeWait, true);
    }

    /**
     * Test hook: a latch whose Curator latch is built on the raw client, not on the view ({@link CuratorTap}), as if
     * a later Curator built its requests in a way the view cannot see. The recipe then sees no answer: every Stat is
     * read, and the grant stays level-triggered only through Curator's callbacks and the bounded re-check.
     */
    static FencedLeaderLatch withoutClientView(CuratorFramework client, String latchPath, String participantId) {
        return new FencedLeaderLatch(client, latchPath, participantId, Duration.ofMillis(CLOSE_WAIT_MILLIS), false);
    }

    private FencedLeaderLatch(
            CuratorFramework client, String latchPath, String participantId, Duration closeWait, boolean clientView) {
        this.client = ElectionNodes.requireArgument(client, "client");
        this.latchPath = ElectionNodes.requireElectionPath(latchPath, "latchPath");
        this.participantId = ElectionNodes.requireText(participantId, "participantId");
        this.closeWait = ElectionNodes.requireCloseWait(closeWait);
        this.events = new RecipeThread("leasehold-latch-" + participantId);
        this.checks = new RecipeThread("leasehold-latch-" + participantId + "-check");
        this.deletes = new LatchDeletes(participantId, this.closeWait);
        this.listeners = new LatchListeners(participantId, deletes);
        CuratorFramework tapped = !clientView
                ? client
                : CuratorTap.tap(client, new CuratorTap.Observer() {
                    @Override
                    public void answered(CuratorEvent event) {
                        grants.answered(event);
                    }

                    @Override
                    public void created(String path, Stat stat) {
                        // the latch creates its node in the background: its answer comes to answered()
                    }

                    @Override
                    public boolean seesDeletes() {
                        return true;
                    }

                    @Override
                    public boolean holdDelete(String path, Runnable send) {
                        return deletes.hold(path, send); // not before the losses told so far returned
                    }
                });
        // Its callbacks only hand work to our thread or swap a reference: fine on Curator's thread.
        this.latch = new ReplaceableLatch(
                client,
                tapped,
                latchPath,
                participantId,
                new ReplaceableLatch.Owner() {
                    @Override
                    public void isLeader() {
                        grants.reconcile();
                    }

                    @Override
                    public void notLeader() {
                        grants.withdraw(
                                ElectionNodes.isConnected(client) ? LossCause.NODE_GONE : LossCause.SUSPENDED,
                                "Curator reported leadership lost");
                    }

                    @Override
                    public void replaced(String why) {
                        grants.replaced(why);
                    }
                },
                checks::execute);
        this.grants = new LatchGrants(
                client,
                latchPath,
                participantId,
                latch,
                events,
                listeners,
                progress,
                () -> lifecycle.get() == Lifecycle.STARTED,
                this::signalWaiters);
    }

    /**
     * Sets a progress deadline: while this instance leads, its work must call {@link #progress()} at least once per
     * {@code deadline}; if it does not, the latch gives leadership up as if lost. The token is withdrawn, listeners
     * hear {@code leadershipLost(token, }{@link LossCause#STALLED}{@code )}, and the latch leaves the election and
     * joins again with a new node at the back of the queue, so that another participant (if any) leads. Off by
     * default: a leader that holds its session keeps leadership however long its work hangs.
     *
     * <p>Choose a deadline well above the longest gap between two {@code progress()} calls of healthy work (a slow
     * batch, a GC pause): a deadline that is too short makes leadership flap. The clock starts at each grant.
     *
     * @param deadline more than 0 and at most one day
     * @throws IllegalArgumentException if {@code deadline} is null, zero, negative or longer than one day
     * @throws IllegalStateException    if the latch was already started
     */
    public void setProgressDeadline(Duration deadline) {
        Duration valid = ProgressWatch.requireDeadline(deadline);
        if (lifecycle.get() != Lifecycle.LATENT) {
            throw new IllegalStateException("[" + participantId + "] setProgressDeadline() must be called before"
                    + " start(); this latch is " + lifecycle.get());
        }
        progress.deadline(valid);
    }

    /**
     * The progress deadline, if one was set.
     *
     * @return the deadline, empty when off
     */
    public Optional<Duration> progressDeadline() {
        return progress.deadline();
    }

    /**
     * Tells the latch that the leader's work advanced. Cheap (one volatile write: no lock, no I/O): call it from the
     * work loop as often as you like, e.g. once per item or per tick. Called while this instance does not lead, it
     * is ignored (each grant starts its own clock). Without a progress deadline it only feeds {@link
     * #sinceProgress()}.
     */
    public void progress() {
        progress.progress();
    }

    /**
     * How long the leader's work has gone without calling {@link #progress()} (counted from the grant if it never
     * did), while this instance leads.
     *
     * @return the time since the last progress, empty while not leading
     */
    public Optional<Duration> sinceProgress() {
        return progress.sinceProgress();
    }

    /**
     * Joins the election. A {@link #close()} racing this call wins: the latch then never creates a node.
     *
     * <p>First checks the Curator on the class path: one older than 5.4.0 is refused (the message names the version
     * found, the minimum and why); one newer than the newest tested (5.9.0), or whose version cannot be read (no
     * Curator manifest, as in some shaded jars), runs with one WARN per JVM. See {@code docs/curator-compatibility.md}.
     *
     * @throws IllegalStateException if the Curator on the class path is older than 5.4.0, the client is not started,
     *                               or this latch was started or closed before
     */
    public void start() {
        CuratorVersion.requireSupported("FencedLeaderLatch '" + participantId + "' on " + latchPath);
        ElectionNodes.requireStarted(client);
        if (!lifecycle.compareAndSet(Lifecycle.LATENT, Lifecycle.STARTED)) {
            throw new IllegalStateException("FencedLeaderLatch '" + participantId + "' on " + latchPath + " is "
                    + lifecycle.get() + ": start() may be called once, on a latch that was never closed");
        }
        if (!ElectionNodes.suspendedIsError(client)) {
            log.warn(
                    "[{}] the client's ConnectionStateErrorPolicy keeps leadership while SUSPENDED: a disconnected"
                            + " leader keeps its token until the session is LOST, so two participants can believe they lead"
                            + " for up to a session timeout; only the resource's token check then prevents double leaders",
                    participantId);
        }
        synchronized (curatorLifecycle) {
            if (released) {
                log.debug("[{}] closed while starting: not joining the election", participantId);
                return;
            }
            client.getConnectionStateListenable().addListener(connectionListener);
            events.prestart(); // the first grant does not pay for a new thread; it still ends if idle
            try {
                latch.start();
                curatorStarted = true;
            } catch (Exception e) {
                client.getConnectionStateListenable().removeListener(connectionListener);
                released = true;
                lifecycle.set(Lifecycle.CLOSED);
                events.shutdown();
                checks.shutdown();
                throw new IllegalStateException("[" + participantId + "] could not start the latch on " + latchPath, e);
            }
        }
    }

    /**
     * Waits until this instance leads with a token, the timeout elapses, or the latch is closed. A timeout of 0 or
     * less does not wait, as in {@link java.util.concurrent.CountDownLatch#await(long, TimeUnit)}.
     *
     * @param timeout the longest time to wait, in {@code unit}s
     * @param unit    the unit of {@code timeout}
     * @return {@code true} if this instance held a token when the wait ended
     * @throws IllegalStateException if {@link #start()} was not called
     * @throws InterruptedException  if the calling thread was interrupted while it waited
     */
    public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
        ElectionNodes.requireArgument(unit, "unit");
        if (lifecycle.get() == Lifecycle.LATENT) {
            throw new IllegalStateException("[" + participantId + "] call start() before await()");
        }
        long deadline = System.nanoTime() + unit.toNanos(Math.max(0, timeout));
        synchronized (leadershipChanged) {
            while (true) {
                if (hasLeadership()) {
                    return true;
                }
                long left = deadline - System.nanoTime();
                if (lifecycle.get() == Lifecycle.CLOSED || left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(leadershipChanged, left);
            }
        }
    }

    /**
     * {@code true} while this instance holds a verified token and Curator still leads with that token's node. A
     * belief, not a guarantee: see the class comment.
     *
     * @return whether this instance holds a token now
     */
    public boolean hasLeadership() {
        return currentToken().isPresent();
    }

    /**
     * The token of the current grant.
     *
     * @return the token, present only while this instance leads with that token's node
     */
    public Optional<FencingToken> currentToken() {
        LatchGrants.Grant current = grants.current();
        if (current.token() == null
                || lifecycle.get() != Lifecycle.STARTED
                || !latch.hasLeadership()
                || !current.curatorPath().equals(latch.getLastPathIsLeader())) {
            return Optional.empty();
        }
        return Optional.of(current.token());
    }

    /**
     * Who leads this election now, read from ZooKeeper (the election's children, then the lowest node: no watch).
     * A snapshot: see {@link LeaderInfo}.
     *
     * @return the leader's id and node, empty if nobody takes part
     * @throws IllegalStateException if ZooKeeper could not be read (the cause attached)
     */
    public Optional<LeaderInfo> currentLeader() {
        return ElectionNodes.readLeader(client, latchPath, ElectionNodes.LATCH_MARKER);
    }

    /**
     * Adds a listener that runs on the recipe's own thread. Keep it short: it delays the next grant.
     *
     * @param listener told of every grant and loss from now on
     */
    public void addListener(FencedLeaderListener listener) {
        listeners.add(ElectionNodes.requireArgument(listener, "listener"), null);
    }

    /**
     * Adds a listener that runs on {@code executor} (handed the call from the recipe's own thread).
     *
     * @param listener told of every grant and loss from now on
     * @param executor runs the listener's calls
     */
    public void addListener(FencedLeaderListener listener, Executor executor) {
        listeners.add(
                ElectionNodes.requireArgument(listener, "listener"),
                ElectionNodes.requireArgument(executor, "executor"));
    }

    /**
     * Removes a listener (compared by identity); a notification already under way may still reach it.
     *
     * @param listener a listener added before (nothing happens if it was not)
     */
    public void removeListener(FencedLeaderListener listener) {
        listeners.remove(listener);
    }

    /** @return this participant's id, as given to the constructor */
    public String participantId() {
        return participantId;
    }

    /** @return the election path, as given to the constructor */
    public String latchPath() {
        return latchPath;
    }

    /**
     * Leaves the election: withdraws the token, tells listeners {@code leadershipLost(token, CLOSED)}, waits up to
     * the close wait for listeners (on the recipe's thread and on their executors) to finish, and only then deletes
     * the node, so a follower is not granted while this instance's listeners still run. Idempotent.
     *
     * <p>If the recipe's thread is idle, {@code leadershipLost(token, CLOSED)} runs on the thread that calls {@code
     * close()} (as Curator's {@code CloseMode.NOTIFY_LEADER} does), and the node is released at once after it.
     * Called from a listener, or on a ZooKeeper or Curator thread, it does not wait (that would deadlock or stall
     * every recipe on the client): the node is released on the recipe's own thread once the listeners returned.
     */
    @Override
    public void close() {
        Lifecycle previous = lifecycle.getAndSet(Lifecycle.CLOSED);
        if (previous == Lifecycle.CLOSED) {
            return;
        }
        grants.endGrant(LossCause.CLOSED, "closed");
        Runnable last = () -> {
            listeners.drainLosses();
            listeners.awaitExecutorCalls(closeWait);
            release();
        };
        // Never wait for ourselves (a listener closing the latch) nor on a ZooKeeper or Curator thread.
        boolean mayWait = !events.isCurrentThread()
                && !listeners.isCallingThread()
                && !ElectionNodes.isZooKeeperOrCuratorThread();
        // Nothing queued or running on the recipe's thread: tell the listeners and release here, without waking it.
        if (!mayWait || !events.runHereIfIdle(last)) {
            events.execute(last);
        }
        events.shutdown();
        if (mayWait && !events.awaitTermination(closeWait)) {
            log.warn(
                    "[{}] listeners still running after {} ms; releasing the node anyway",
                    participantId,
                    closeWait.toMillis());
            release();
        }
        signalWaiters();
    }

    @Override
    public String toString() {
        return "FencedLeaderLatch[" + participantId + " on " + latchPath + ", " + lifecycle.get() + ", token="
                + grants.current().token() + "]";
    }

    /** On a Curator thread: must not block. Withdraws the token at once; listeners are told on our thread. */
    private void onConnectionStateChanged(ConnectionState state) {
        if (state == ConnectionState.LOST) {
            grants.withdraw(LossCause.LOST, "connection LOST");
        } else if (state == ConnectionState.SUSPENDED && ElectionNodes.suspendedIsError(client)) {
            grants.withdraw(LossCause.SUSPENDED, "connection SUSPENDED");
        } else if (state == ConnectionState.RECONNECTED) {
            grants.reconcile(); // a check that failed while disconnected is retried
            latch.suspect("reconnected"); // an older Curator's latch can be stuck after a reconnect
        }
    }

    /** On the watch's timer thread; never blocks. The grant of {@code token} made no progress: give it up. */
    private void onStalled(FencingToken token, Duration idle) {
        if (grants.current().token() != token) {
            return; // that grant already ended
        }
        grants.withdraw(
                LossCause.STALLED,
                "no progress() for " + idle.toMillis() + " ms (deadline "
                        + progress.deadline().map(Duration::toMillis).orElse(0L) + " ms)");
        // on the recipe's thread: Curator's latch is closed (its node deleted) and a new one joins at the back
        events.execute(() -> latch.rejoin("the leader made no progress within its deadline"));
    }

    // ---- threads ---------------------------------------------------------------------------------------------

    /** Stops Curator's latch (its node is deleted in the background), or makes sure it never starts. */
    private void release() {
        synchronized (curatorLifecycle) {
            if (released) {
                return;
            }
            released = true;
            client.getConnectionStateListenable().removeListener(connectionListener);
            checks.shutdown(); // a check queued now finds the latch closed; none is queued from here on
            deletes.open(); // close waited for the listeners (bounded): nothing is held from here on
            if (!curatorStarted) {
                return;
            }
        }
        try {
            latch.close();
        } catch (IOException | RuntimeException e) {
            log.warn(
                    "[{}] closing the Curator latch on {} failed; its node goes with the session",
                    participantId,
                    latchPath,
                    e);
        }
        signalWaiters();
    }

    private void signalWaiters() {
        synchronized (leadershipChanged) {
            leadershipChanged.notifyAll();
        }
    }
}
