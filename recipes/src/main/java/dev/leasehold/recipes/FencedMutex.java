package dev.leasehold.recipes;

import java.io.Closeable;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Curator's {@link InterProcessMutex}, handing each hold a {@link FencingToken} to send with every write made under
 * it, and telling the holder when the hold is lost.
 *
 * <p>The lock is Curator's, unchanged: each acquirer creates a protected ephemeral-sequential node under {@code path};
 * the lowest holds; each waiter watches only its predecessor, so a release wakes exactly one waiter. This class adds
 * no watch and no request: the token is the {@code czxid} of the hold's own node, taken from the answer to Curator's
 * create ({@link MutexNodes}, a driver Curator's mutex accepts), and granted only for a node owned by the client's
 * current session. The node's sequence number is never the token (it restarts when the container parent is reaped).
 * Successive holders' tokens strictly increase, across processes, session expiries, server restarts and quorum-leader
 * changes.
 *
 * <p>Reentrant per thread, as Curator's: a nested {@link #acquire()} returns the same token; the outermost {@link
 * #release()} frees the lock. Threads of one process exclude each other as processes do.
 *
 * <p>What Curator's mutex does not do and this does: a hold ends at once on SUSPENDED (under Curator's default
 * connection-state error policy; the client's {@code getConnectionStateErrorPolicy()} is honoured) and on LOST:
 * {@link #currentToken()} is empty from then on, and the loss listeners are told, on their executors. A holder whose
 * work stops calling {@link #progress()} within the progress deadline gives the hold up ({@link LossCause#STALLED}).
 * {@link #release()} after a loss removes the node if it is still there and does not throw for the loss.
 *
 * <p>IMPORTANT: a hold is a belief, not a guarantee. A paused process keeps believing it holds until it runs again
 * and sees the state change; another process may hold the lock meanwhile, with a higher token. Only the resource's
 * token check stops the stale holder's writes.
 *
 * <p>Thread-safety: thread-safe. Each hold belongs to the thread that acquired it.
 */
public final class FencedMutex implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(FencedMutex.class);

    /**
     * A thread's hold: its token and the Curator mutex that granted it. Nothing changes but {@code count} (touched by
     * the owner only) and {@code lostBy}.
     */
    private static final class Hold {
        final FencingToken token;
        final InterProcessMutex curator;
        int count = 1;
        volatile LossCause lostBy;

        Hold(FencingToken token, InterProcessMutex curator) {
            this.token = token;
            this.curator = curator;
        }
    }

    private final CuratorFramework client;
    private final String path;
    private final String participantId;
    private final MutexNodes nodes;
    private final MutexListeners listeners;
    private final ProgressWatch progress = new ProgressWatch(this::onStalled);

    /** Every thread's hold, live or lost, until that thread releases it. */
    private final Map<Thread, Hold> holds = new ConcurrentHashMap<>();
    /** The one live hold of this mutex in this process, if any: a loss swaps it out, and that is the loss. */
    private final AtomicReference<Hold> live = new AtomicReference<>();
    /** Connection losses seen (SUSPENDED as an error, LOST): a grant that raced one proves its node by a read. */
    private final AtomicLong losses = new AtomicLong();

    /** Full paths of released nodes whose delete failed (ZooKeeper unreachable): deleted again at RECONNECTED. */
    private final java.util.Set<String> undeleted = ConcurrentHashMap.newKeySet();

    private volatile LossCause lastLoss = LossCause.SUSPENDED;
    private final AtomicBoolean listening = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ConnectionStateListener connectionListener = (c, state) -> onConnectionStateChanged(state);

    /**
     * A mutex whose participant id is made up ({@code mutex-<pid>-<random>}): stored as the lock nodes' data.
     *
     * @param client a Curator client, started before the first {@link #acquire()}
     * @param path   the lock path, e.g. {@code /app/locks/batch}; its nodes get the client's ACLs
     * @throws IllegalArgumentException if {@code client} is null or {@code path} is not an absolute ZooKeeper path
     *                                  below the root
     */
    public FencedMutex(CuratorFramework client, String path) {
        this(
                client,
                path,
                "mutex-" + ProcessHandle.current().pid() + "-"
                        + Integer.toHexString(ThreadLocalRandom.current().nextInt()));
    }

    /**
     * @param client        a Curator client, started before the first {@link #acquire()}
     * @param path          the lock path, e.g. {@code /app/locks/batch}; its nodes get the client's ACLs
     * @param participantId this process's id, stored as its lock nodes' data, in its tokens and its log lines
     * @throws IllegalArgumentException if {@code client} is null, {@code path} is not an absolute ZooKeeper path
     *                                  below the root, or {@code participantId} is null or blank
     */
    public FencedMutex(CuratorFramework client, String path, String participantId) {
        this.client = ElectionNodes.requireArgument(client, "client");
        this.path = ElectionNodes.requireElectionPath(path, "path");
        this.participantId = ElectionNodes.requireText(participantId, "participantId");
        this.nodes = new MutexNodes(participantId);
        this.listeners = new MutexListeners(participantId);
    }

    /**
     * Acquires the lock, waiting as long as it takes. Reentrant: a thread that holds it gets the same token back (and
     * must call {@link #release()} once more).
     *
     * @return the token of this hold: send it with every write made under the lock
     * @throws IllegalStateException if the mutex is closed, the client is not started, or this thread's hold was
     *                               lost and not yet released
     * @throws Exception             what Curator's {@code acquire()} throws (ZooKeeper errors, an interrupt)
     */
    public FencingToken acquire() throws Exception {
        return acquire(-1).orElseThrow(() -> new IllegalStateException("[" + participantId + "] no hold on " + path));
    }

    /**
     * Acquires the lock if it can within {@code timeout}. A timeout of zero does not wait. Reentrant: a thread that
     * holds the lock gets the same token back (and must call {@link #release()} once more); a thread whose hold was
     * lost gets empty (and must release it), so a nested call is a check that the hold still stands.
     *
     * @param timeout the longest time to wait; zero or more
     * @return the token of this hold, empty if the lock was not acquired in time (nothing to release then)
     * @throws IllegalArgumentException if {@code timeout} is null or negative
     * @throws IllegalStateException    if the mutex is closed or the client is not started
     * @throws Exception                what Curator's {@code acquire(time, unit)} throws
     */
    public Optional<FencingToken> acquire(Duration timeout) throws Exception {
        ElectionNodes.requireArgument(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be zero or more, was " + timeout);
        }
        long nanos;
        try {
            nanos = Math.min(timeout.toNanos(), Long.MAX_VALUE / 4);
        } catch (ArithmeticException tooLong) {
            nanos = Long.MAX_VALUE / 4;
        }
        return acquire(nanos);
    }

    /** @param waitNanos the longest wait, or -1 for as long as it takes */
    private Optional<FencingToken> acquire(long waitNanos) throws Exception {
        requireOpen();
        Thread me = Thread.currentThread();
        Hold held = holds.get(me);
        if (held != null) {
            if (live.get() != held) {
                if (waitNanos >= 0) {
                    return Optional.empty();
                }
                throw new IllegalStateException("[" + participantId + "] this thread's hold of " + path + " (token "
                        + held.token.value() + ") was lost (" + held.lostBy + "): release() it before acquiring again");
            }
            held.count++;
            return Optional.of(held.token);
        }
        ElectionNodes.requireStarted(client);
        startListening();
        long deadline = System.nanoTime() + waitNanos;
        while (true) {
            long lossesBefore = losses.get();
            // One Curator mutex per hold (cheap: no I/O): a hold whose node cannot be deleted now (ZooKeeper
            // unreachable) drops its mutex instead of blocking in Curator's release (see releaseCurator).
            InterProcessMutex curator = new InterProcessMutex(client, path, nodes);
            if (waitNanos < 0) {
                curator.acquire();
            } else if (!curator.acquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                nodes.takeCreated(); // Curator deleted that node: forget it
                return Optional.empty();
            }
            Hold hold = grant(me, curator, lossesBefore);
            if (hold != null) {
                return Optional.of(hold.token);
            }
            if (waitNanos >= 0 && deadline - System.nanoTime() <= 0) {
                return Optional.empty();
            }
        }
    }

    /**
     * On the acquiring thread, Curator has just granted: make its node's token this thread's hold, or give the node
     * up (it was not ours: of an older session) and return {@code null} so that the caller queues again.
     */
    private Hold grant(Thread me, InterProcessMutex curator, long lossesBefore) throws Exception {
        MutexNodes.Created created = nodes.takeCreated();
        if (closed.get() || created == null) {
            releaseCurator(curator, null, "not granted");
            throw new IllegalStateException("[" + participantId + "] "
                    + (closed.get()
                            ? "closed while acquire() waited on " + path + "; the node was released"
                            : "Curator granted " + path + " with a node this mutex did not create"));
        }
        long lossesChecked = losses.get();
        ElectionNodes.Read verdict;
        try {
            // A connection loss while waiting: read the node's Stat, proving it still exists in our session.
            verdict = nodes.token(client, created, lossesChecked != lossesBefore);
        } catch (Exception e) {
            releaseCurator(curator, null, "could not read the node");
            throw e;
        }
        if (!verdict.isGranted()) {
            log.info("[{}] Curator granted {}, but {}; queueing again", participantId, path, verdict.refusal());
            releaseCurator(curator, null, "not ours");
            return null;
        }
        Hold hold = new Hold(verdict.token(), curator);
        holds.put(me, hold);
        Hold previous = live.getAndSet(hold);
        if (previous != null) { // its loss was not seen yet: its node must be gone, or we would not hold
            ended(previous, LossCause.NODE_GONE, "another hold of this mutex was granted in this process");
        }
        progress.leading(hold.token);
        if (losses.get() != lossesChecked
                || (ElectionNodes.suspendedIsError(client) && !ElectionNodes.isConnected(client))) {
            lose(hold, lastLoss, "the connection was lost as the hold was granted");
        }
        if (closed.get()) {
            holds.remove(me);
            live.compareAndSet(hold, null);
            progress.notLeading(hold.token);
            releaseCurator(hold.curator, hold, "closed");
            throw new IllegalStateException("[" + participantId + "] closed while acquire() waited on " + path);
        }
        log.debug(
                "[{}] holding {} with token {} (0x{})",
                participantId,
                hold.token.path(),
                hold.token.value(),
                Long.toHexString(hold.token.value()));
        return hold;
    }

    /**
     * Releases one hold of the calling thread; the outermost release frees the lock (deletes the node). After a loss
     * it removes the node if it is still there and returns normally. A failure to reach ZooKeeper is logged, not
     * thrown: Curator's delete is guaranteed (retried in the background) and the node goes with the session anyway.
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold the lock
     * @throws Exception                    declared as Curator's {@code release()} declares it; never thrown for a loss
     *                                      or a ZooKeeper failure
     */
    public void release() throws Exception {
        Thread me = Thread.currentThread();
        Hold hold = holds.get(me);
        if (hold == null) {
            throw new IllegalMonitorStateException(
                    "You do not own the lock: " + path + " ([" + participantId + "], thread " + me.getName() + ")");
        }
        if (--hold.count > 0) {
            return;
        }
        holds.remove(me);
        boolean wasLive = live.compareAndSet(hold, null);
        progress.notLeading(hold.token);
        releaseCurator(hold.curator, hold, wasLive ? "released" : "released after its loss (" + hold.lostBy + ")");
    }

    /**
     * The token of the calling thread's hold while it stands; for a thread that holds nothing, the token of the hold
     * another thread of this process has, if it stands.
     *
     * @return the token, empty once the hold is lost, released or the mutex closed
     */
    public Optional<FencingToken> currentToken() {
        Hold current = live.get();
        Hold mine = holds.get(Thread.currentThread());
        if (mine != null && mine != current) {
            return Optional.empty(); // ours was lost: never answer with another thread's token
        }
        return current == null || closed.get() ? Optional.empty() : Optional.of(current.token);
    }

    /** @return {@code true} while a thread of this process holds this mutex and the hold stands (not lost) */
    public boolean isAcquiredInThisProcess() {
        return live.get() != null && !closed.get();
    }

    /** @return {@code true} while the calling thread holds this mutex and the hold stands (not lost) */
    public boolean isOwnedByCurrentThread() {
        Hold mine = holds.get(Thread.currentThread());
        return mine != null && mine == live.get() && !closed.get();
    }

    /**
     * Adds a listener told of every hold of this mutex that ends without its holder releasing it.
     *
     * @param listener told {@code lost(token, cause)}
     * @param executor runs the listener's calls (handed them from the mutex's own thread, never from Curator's)
     * @throws IllegalArgumentException if {@code listener} or {@code executor} is null
     */
    public void addLossListener(FencedLossListener listener, Executor executor) {
        listeners.add(
                ElectionNodes.requireArgument(listener, "listener"),
                ElectionNodes.requireArgument(executor, "executor"));
    }

    /**
     * Removes a listener (compared by identity); a call already under way may still reach it.
     *
     * @param listener a listener added before (nothing happens if it was not)
     */
    public void removeLossListener(FencedLossListener listener) {
        listeners.remove(listener);
    }

    /**
     * Sets a progress deadline for the holds granted from now on: while a hold stands, its work must call {@link
     * #progress()} at least once per {@code deadline}; if it does not, the hold is given up as if lost: the token is
     * withdrawn, loss listeners hear {@link LossCause#STALLED}, and the node is deleted so that the next waiter is
     * granted. The holder must still {@link #release()}. Off by default.
     *
     * @param deadline more than 0 and at most one day
     * @throws IllegalArgumentException if {@code deadline} is null, zero, negative or longer than one day
     */
    public void setProgressDeadline(Duration deadline) {
        progress.deadline(deadline);
    }

    /** @return the progress deadline, empty when off */
    public Optional<Duration> progressDeadline() {
        return progress.deadline();
    }

    /** Tells the mutex that the holder's work advanced. One volatile write: call it as often as you like. */
    public void progress() {
        progress.progress();
    }

    /** @return how long the holder's work has gone without {@link #progress()} while a hold stands, else empty */
    public Optional<Duration> sinceProgress() {
        return progress.sinceProgress();
    }

    /**
     * Who holds the lock now, read from ZooKeeper (its children, then the lowest node: no watch). A snapshot.
     *
     * @return the holder's participant id, token and session, empty if nobody holds or waits
     * @throws IllegalStateException if ZooKeeper could not be read (the cause attached)
     */
    public Optional<LeaderInfo> currentHolder() {
        return ElectionNodes.readLeader(client, path, ElectionNodes.SELECTOR_MARKER);
    }

    /** @return this process's participant id, stored in the lock nodes */
    public String participantId() {
        return participantId;
    }

    /** @return the lock path, as given to the constructor */
    public String path() {
        return path;
    }

    /**
     * Closes the mutex. Idempotent. The calling thread's hold, if any, is released (its node deleted); another
     * thread's standing hold is ended (its node deleted in the background; that thread's {@code release()} then
     * returns normally). Loss listeners hear {@link LossCause#CLOSED} for a hold that stood, then are removed. An
     * {@code acquire} waiting in another thread is not cut short: once granted it gives the node up and throws.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        client.getConnectionStateListenable().removeListener(connectionListener);
        Hold mine = holds.remove(Thread.currentThread());
        Hold current;
        while ((current = live.get()) != null) {
            if (live.compareAndSet(current, null)) {
                ended(current, LossCause.CLOSED, "closed");
                if (current != mine) {
                    nodes.deleteInBackground(client, current.token.path(), () -> {});
                }
            }
        }
        if (mine != null) {
            releaseCurator(mine.curator, mine, "closed");
        }
        listeners.close();
    }

    @Override
    public String toString() {
        Hold current = live.get();
        return "FencedMutex[" + participantId + " on " + path + (closed.get() ? ", closed" : "") + ", token="
                + (current == null ? "none" : current.token.value()) + "]";
    }

    // ---- losses ---------------------------------------------------------------------------------------------------

    /** Any thread, never blocks: ends {@code hold} if it still stands. */
    private boolean lose(Hold hold, LossCause cause, String why) {
        if (!live.compareAndSet(hold, null)) {
            return false;
        }
        ended(hold, cause, why);
        return true;
    }

    /** {@code hold} was just swapped out of {@link #live}: record why, disarm its deadline, tell the listeners. */
    private void ended(Hold hold, LossCause cause, String why) {
        hold.lostBy = cause;
        progress.notLeading(hold.token);
        log.info("[{}] hold of {} with token {} lost ({}): {}", participantId, path, hold.token.value(), cause, why);
        listeners.lost(hold.token, cause);
    }

    /** On a Curator thread: must not block. */
    private void onConnectionStateChanged(ConnectionState state) {
        if (state == ConnectionState.RECONNECTED) {
            for (String node : undeleted) { // CURATOR-678: a node released while unreachable must not block the lock
                nodes.deleteInBackground(client, node, () -> undeleted.remove(node));
            }
            return;
        }
        LossCause cause = state == ConnectionState.LOST
                ? LossCause.LOST
                : state == ConnectionState.SUSPENDED && ElectionNodes.suspendedIsError(client)
                        ? LossCause.SUSPENDED
                        : null;
        if (cause == null) {
            return;
        }
        lastLoss = cause;
        losses.incrementAndGet();
        Hold current = live.get();
        while (current != null && !lose(current, cause, "connection " + state)) {
            current = live.get();
        }
    }

    /** On the watch's timer thread; never blocks. */
    private void onStalled(FencingToken token, Duration idle) {
        Hold current = live.get();
        if (current != null
                && current.token == token
                && lose(current, LossCause.STALLED, "no progress() for " + idle.toMillis() + " ms")) {
            nodes.deleteInBackground(client, token.path(), () -> {});
        }
    }

    // ---- Curator ----------------------------------------------------------------------------------------------------

    private void startListening() {
        if (listening.compareAndSet(false, true)) {
            client.getConnectionStateListenable().addListener(connectionListener);
            if (closed.get()) {
                client.getConnectionStateListenable().removeListener(connectionListener);
            }
            if (!ElectionNodes.suspendedIsError(client)) {
                log.warn(
                        "[{}] the client's ConnectionStateErrorPolicy keeps holds while SUSPENDED: a disconnected holder"
                                + " keeps its token until the session is LOST; only the resource's token check then"
                                + " refuses its late writes",
                        participantId);
            }
        }
    }

    /**
     * Releases Curator's hold of the calling thread. While ZooKeeper is unreachable, Curator's release would block in
     * its retry loop (and then throw, CURATOR-678): a hold's Curator mutex is then dropped (it is used for no other
     * hold) and its node deleted in the background, again at RECONNECTED, so that it never blocks the lock. A failure
     * is logged, not thrown.
     */
    private void releaseCurator(InterProcessMutex curator, Hold hold, String why) {
        if (hold != null && !ElectionNodes.isConnected(client)) {
            String node = hold.token.path();
            undeleted.add(node);
            nodes.deleteInBackground(client, node, () -> undeleted.remove(node));
            log.info(
                    "[{}] token {} {} while ZooKeeper is unreachable: its node {} is deleted once it is reachable, or"
                            + " goes with the session",
                    participantId,
                    hold.token.value(),
                    why,
                    node);
            return;
        }
        try {
            curator.release();
            if (hold != null) {
                log.debug("[{}] token {} {}", participantId, hold.token.value(), why);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            releaseFailed(hold, why, e);
        } catch (Exception e) {
            releaseFailed(hold, why, e);
        }
    }

    private void releaseFailed(Hold hold, String why, Exception e) {
        if (hold != null) {
            undeleted.add(hold.token.path());
            if (ElectionNodes.isConnected(client)) { // connected again already: no RECONNECTED to wait for
                nodes.deleteInBackground(client, hold.token.path(), () -> undeleted.remove(hold.token.path()));
            }
        }
        log.warn(
                "[{}] could not delete the lock node of {} ({}, token {}) now; it is deleted once ZooKeeper is"
                        + " reachable again, or goes with the session",
                participantId,
                path,
                why,
                hold == null ? "none" : hold.token.value(),
                e);
    }

    private void requireOpen() {
        if (closed.get()) {
            throw new IllegalStateException("[" + participantId + "] the FencedMutex on " + path + " is closed");
        }
    }
}
