package dev.leasehold.recipes;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.curator.RetryLoop;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Curator's {@link LeaderLatch}, handing the leader a {@link FencingToken} it can send with every write.
 *
 * <p>The election is Curator's, unchanged: each participant creates a protected ephemeral-sequential node under
 * {@code latchPath}; the lowest leads; each follower watches only its predecessor, so a leader change wakes
 * exactly one follower. This class adds no watch of its own.
 *
 * <p>How a grant becomes a token:
 * <ol>
 *   <li>Curator reports leadership. The report is handed to this recipe's own thread (never handled on a
 *       ZooKeeper or Curator thread).</li>
 *   <li>One read-only multi (one round trip) lists the election path and stats our node. The token is the node's
 *       {@code czxid}, handed out only if, at that read, the node is the lowest child and its
 *       {@code ephemeralOwner} is the client's current session.</li>
 *   <li>If any loss happened while reading, the read is void and nothing is granted.</li>
 * </ol>
 *
 * <p>How a grant ends: on SUSPENDED (under Curator's default error policy) and on LOST the token is withdrawn at
 * once, on the thread that delivers the state change ({@link #currentToken()} becomes empty, {@link
 * #hasLeadership()} false), then listeners are told {@code leadershipLost}. If the session survives, Curator
 * re-grants on RECONNECTED and the same node yields the same token value.
 *
 * <p>IMPORTANT: {@code hasLeadership()} is a belief, not a guarantee. A paused process (GC, frozen VM) keeps
 * believing it leads until it runs again and sees the state change; another participant may lead meanwhile. Only
 * the resource's token check stops the stale leader's writes: "check {@code hasLeadership()}, then write" is always
 * a race.
 */
public final class FencedLeaderLatch implements Closeable {

    /** How long {@link #close()} waits for listeners on the recipe's own thread to finish before releasing the node. */
    public static final long CLOSE_WAIT_MILLIS = 10_000;

    /** Verification attempts per grant when Curator's node changes under the report (see onCuratorLeader). */
    private static final int VERIFY_ATTEMPTS = 5;
    private static final long VERIFY_PAUSE_MILLIS = 25;

    private static final Logger log = LoggerFactory.getLogger(FencedLeaderLatch.class);

    private enum Lifecycle { LATENT, STARTED, CLOSED }

    /** Who we are as leader right now. Replaced, never mutated: identity is what compareAndSet compares. */
    private record Grant(FencingToken token, long generation) {}

    private record Registration(FencedLeaderListener listener, Executor executor) {}

    private final CuratorFramework client;
    private final String latchPath;
    private final String participantId;
    private final LeaderLatch latch;
    private final AtomicReference<Lifecycle> lifecycle = new AtomicReference<>(Lifecycle.LATENT);
    private final AtomicReference<Grant> grant = new AtomicReference<>(new Grant(null, 0));
    private final List<Registration> listeners = new CopyOnWriteArrayList<>();
    /** The recipe's own thread: token reads and listener calls happen here, in order. */
    private final ThreadPoolExecutor events;
    private volatile Thread eventsThread;
    /** {@link #await} waits on this monitor; it is held only to signal, never while calling anyone's code. */
    private final Object leadershipChanged = new Object();
    private final ConnectionStateListener connectionListener = (c, state) -> onConnectionStateChanged(state);

    /**
     * @param client        a Curator client; it must be started before {@link #start()}
     * @param latchPath     the election path, e.g. {@code /app/leader}; its nodes get the client's ACLs
     * @param participantId this participant's id, stored as its node's data; make it unique per participant
     */
    public FencedLeaderLatch(CuratorFramework client, String latchPath, String participantId) {
        this.client = ElectionNodes.requireArgument(client, "client");
        this.latchPath = ElectionNodes.requireElectionPath(latchPath, "latchPath");
        this.participantId = ElectionNodes.requireText(participantId, "participantId");
        this.latch = new LeaderLatch(client, latchPath, participantId);
        ThreadFactory threads = ElectionNodes.namedDaemon("leasehold-latch-" + participantId);
        this.events = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                runnable -> eventsThread = threads.newThread(runnable));
        this.latch.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                onCuratorLeader();
            }

            @Override
            public void notLeader() {
                withdraw("Curator reported leadership lost");
            }
        }, this::runOnEventsThread);
    }

    /**
     * Joins the election.
     *
     * @throws IllegalStateException if the client is not started, or this latch was started or closed before
     */
    public void start() {
        ElectionNodes.requireStarted(client);
        if (!lifecycle.compareAndSet(Lifecycle.LATENT, Lifecycle.STARTED)) {
            throw new IllegalStateException("FencedLeaderLatch '" + participantId + "' on " + latchPath + " is "
                    + lifecycle.get() + ": start() may be called once, on a latch that was never closed");
        }
        if (!ElectionNodes.suspendedIsError(client)) {
            log.warn("[{}] the client's ConnectionStateErrorPolicy keeps leadership while SUSPENDED: a disconnected"
                    + " leader keeps its token until the session is LOST, so two participants can believe they lead"
                    + " for up to a session timeout; only the resource's token check then prevents double leaders",
                    participantId);
        }
        events.prestartCoreThread(); // the first grant does not pay for starting a thread
        client.getConnectionStateListenable().addListener(connectionListener);
        try {
            latch.start();
        } catch (Exception e) {
            client.getConnectionStateListenable().removeListener(connectionListener);
            lifecycle.set(Lifecycle.CLOSED);
            events.shutdownNow();
            throw new IllegalStateException("[" + participantId + "] could not start the latch on " + latchPath, e);
        }
    }

    /**
     * Waits until this instance leads with a token, the timeout elapses, or the latch is closed.
     *
     * @return {@code true} if this instance held a token when the wait ended
     * @throws IllegalArgumentException if {@code timeout} is negative
     * @throws IllegalStateException    if {@link #start()} was not called
     */
    public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout must be 0 or more, was " + timeout);
        }
        ElectionNodes.requireArgument(unit, "unit");
        if (lifecycle.get() == Lifecycle.LATENT) {
            throw new IllegalStateException("[" + participantId + "] call start() before await()");
        }
        long deadline = System.nanoTime() + unit.toNanos(timeout);
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
     * {@code true} while this instance holds a verified token and Curator still reports leadership. A belief, not a
     * guarantee: see the class comment.
     */
    public boolean hasLeadership() {
        return currentToken().isPresent();
    }

    /** The token of the current grant; present only while this instance leads. */
    public Optional<FencingToken> currentToken() {
        FencingToken token = grant.get().token();
        if (token == null || lifecycle.get() != Lifecycle.STARTED || !latch.hasLeadership()) {
            return Optional.empty();
        }
        return Optional.of(token);
    }

    /** Adds a listener that runs on the recipe's own thread. Keep it short: it delays the next grant. */
    public void addListener(FencedLeaderListener listener) {
        listeners.add(new Registration(ElectionNodes.requireArgument(listener, "listener"), null));
    }

    /** Adds a listener that runs on {@code executor} (handed the call from the recipe's own thread). */
    public void addListener(FencedLeaderListener listener, Executor executor) {
        listeners.add(new Registration(ElectionNodes.requireArgument(listener, "listener"),
                ElectionNodes.requireArgument(executor, "executor")));
    }

    public void removeListener(FencedLeaderListener listener) {
        listeners.removeIf(r -> r.listener() == listener);
    }

    public String participantId() {
        return participantId;
    }

    public String latchPath() {
        return latchPath;
    }

    /**
     * Leaves the election: withdraws the token, tells listeners {@code leadershipLost}, waits up to {@link
     * #CLOSE_WAIT_MILLIS} for listeners on the recipe's own thread to finish, and only then deletes the node, so a
     * follower is not granted while this instance's listeners still run. Idempotent.
     */
    @Override
    public void close() {
        Lifecycle previous = lifecycle.getAndSet(Lifecycle.CLOSED);
        if (previous == Lifecycle.CLOSED) {
            return;
        }
        if (previous == Lifecycle.STARTED) {
            client.getConnectionStateListenable().removeListener(connectionListener);
            withdraw("closed");
            events.shutdown();
            awaitEventsThread();
            try {
                latch.close();
            } catch (IOException | RuntimeException e) {
                log.warn("[{}] closing the Curator latch on {} failed; its node goes with the session", participantId,
                        latchPath, e);
            }
        } else {
            events.shutdownNow();
        }
        signalWaiters();
    }

    @Override
    public String toString() {
        return "FencedLeaderLatch[" + participantId + " on " + latchPath + ", " + lifecycle.get() + ", token="
                + grant.get().token() + "]";
    }

    // ---- leadership moves here only ---------------------------------------------------------------------------

    /** On the recipe's own thread: Curator says we lead; verify and read the token, then grant. */
    private void onCuratorLeader() {
        Grant observed = grant.get(); // before the lifecycle check: a close() after it bumps the generation
        if (lifecycle.get() != Lifecycle.STARTED) {
            return;
        }
        ElectionNodes.Read read = null;
        for (int attempt = 0; attempt < VERIFY_ATTEMPTS && latch.hasLeadership(); attempt++) {
            String path = latch.getLastPathIsLeader();
            try {
                read = RetryLoop.callWithRetry(client.getZookeeperClient(),
                        () -> ElectionNodes.readLatchToken(client, path, participantId));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                log.warn("[{}] could not read the fencing token of {}: not leading until Curator grants again",
                        participantId, path, e);
                return;
            }
            if (read.isGranted() || !latch.hasLeadership()) {
                break;
            }
            // Curator may have replaced our node after reporting leadership (a reset racing with the report; it
            // then reports no new transition). Read again, at once if the node changed, else after a short pause.
            if (Objects.equals(path, latch.getLastPathIsLeader()) && !pause(attempt)) {
                return;
            }
        }
        if (read == null) {
            return;
        }
        if (!read.isGranted()) {
            log.warn("[{}] Curator reported leadership but the node was not verified as leader: {}", participantId,
                    read.refusal());
            return;
        }
        FencingToken token = read.token();
        // A loss while reading bumped the generation: the read is void (compareAndSet compares identity).
        if (!latch.hasLeadership() || !grant.compareAndSet(observed, new Grant(token, observed.generation() + 1))) {
            log.debug("[{}] leadership changed while reading token {}; not granted", participantId, token.value());
            return;
        }
        signalWaiters();
        FencingToken previous = observed.token();
        if (previous != null && previous.value() == token.value()) {
            return;
        }
        if (previous != null) {
            notifyListeners(l -> l.leadershipLost(previous), previous);
        }
        log.info("[{}] leading with token {} (0x{}) on {}", participantId, token.value(),
                Long.toHexString(token.value()), token.path());
        notifyListeners(l -> l.leadershipAcquired(token), token);
    }

    /** On a Curator thread: must not block. Withdraws the token at once; listeners are told on our thread. */
    private void onConnectionStateChanged(ConnectionState state) {
        if (state == ConnectionState.LOST
                || (state == ConnectionState.SUSPENDED && ElectionNodes.suspendedIsError(client))) {
            withdraw("connection " + state);
        }
    }

    /** Any thread; never blocks. Ends the current grant, if any, and voids token reads in flight. */
    private void withdraw(String why) {
        Grant current;
        do {
            current = grant.get();
        } while (!grant.compareAndSet(current, new Grant(null, current.generation() + 1)));
        signalWaiters();
        FencingToken lost = current.token();
        if (lost != null) {
            log.info("[{}] token {} withdrawn: {}", participantId, lost.value(), why);
            if (Thread.currentThread() == eventsThread) {
                notifyListeners(l -> l.leadershipLost(lost), lost); // in order, before any grant queued behind us
            } else {
                runOnEventsThread(() -> notifyListeners(l -> l.leadershipLost(lost), lost));
            }
        }
    }

    // ---- threads ---------------------------------------------------------------------------------------------

    /** Runs on the recipe's own thread; listeners with an executor are handed to it from here. */
    private void notifyListeners(Consumer<FencedLeaderListener> call, FencingToken token) {
        for (Registration registration : listeners) {
            Runnable safeCall = () -> {
                try {
                    call.accept(registration.listener());
                } catch (VirtualMachineError e) {
                    throw e;
                } catch (Throwable e) {
                    log.error("[{}] listener {} threw for token {}", participantId, registration.listener(),
                            token.value(), e);
                }
            };
            if (registration.executor() == null) {
                safeCall.run();
            } else {
                try {
                    registration.executor().execute(safeCall);
                } catch (RejectedExecutionException e) {
                    log.warn("[{}] listener executor rejected a call for token {}", participantId, token.value(), e);
                }
            }
        }
    }

    private void runOnEventsThread(Runnable task) {
        try {
            events.execute(task);
        } catch (RejectedExecutionException e) {
            log.debug("[{}] closed; dropped an event", participantId);
        }
    }

    private void awaitEventsThread() {
        if (Thread.currentThread() == eventsThread) {
            return; // close() called from a listener: waiting for ourselves would deadlock
        }
        try {
            if (!events.awaitTermination(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                log.warn("[{}] listeners still running after {} ms; releasing the node anyway", participantId,
                        CLOSE_WAIT_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sleeps before verification attempt {@code attempt + 1}, on the recipe's own thread; false if interrupted. */
    private static boolean pause(int attempt) {
        try {
            Thread.sleep(VERIFY_PAUSE_MILLIS << attempt);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void signalWaiters() {
        synchronized (leadershipChanged) {
            leadershipChanged.notifyAll();
        }
    }
}
