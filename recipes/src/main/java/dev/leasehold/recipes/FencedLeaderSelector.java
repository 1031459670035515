package dev.leasehold.recipes;

import java.io.Closeable;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.CancelLeadershipException;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListener;
import org.apache.curator.framework.state.ConnectionState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Curator's {@link LeaderSelector}, handing the leader's work a {@link FencingToken}.
 *
 * <p>The election is Curator's (an InterProcessMutex: each participant watches only its predecessor). Curator is
 * given a view of the client ({@link CuratorTap}) that reports the path its create returned: our own node. When
 * Curator hands this participant the lock (after listing that node as the lowest child), on the selector's own
 * thread (never a ZooKeeper or Curator thread):
 * <ol>
 *   <li>the token is our node's {@code czxid}, from the Stat the create's answer carried (no round trip), handed
 *       out only if the node's {@code ephemeralOwner} is the client's current session. If the answer carried no Stat
 *       (Curator recovered a protected create), the node's Stat is read: one round trip. Had the create not been
 *       seen at all, the election path
 *       is listed and the lowest {@code lock-} node must be owned by our session <em>and</em> carry this
 *       participant's id (two selectors may share one client and so one session): two round trips;</li>
 *   <li>{@link FencedLeaderSelectorListener#takeLeadership} runs with the token; leadership lasts until it
 *       returns, and then the node is deleted (so a follower starts only after the work stopped).</li>
 * </ol>
 * On SUSPENDED (under Curator's default error policy) and LOST, the token is withdrawn at once and the leader's
 * thread is interrupted. Code that ignores interrupts keeps running: only the resource's token check stops it. A grant
 * that Curator makes while the connection is down (its SUSPENDED may have been delivered before the grant began) is
 * given up, never handed to the work. As with Curator's {@code LeaderSelectorListenerAdapter}, such a state change
 * also takes the selector out of the queue (leading or waiting): with {@link #autoRequeue()} it queues again at
 * once, else {@link #requeue()} puts it back.
 *
 * <p>The participant id is stored as the node's data and must be unique among participants; a second selector with
 * the same id on the same client and path is refused at {@link #start()}.
 *
 * <p>Thread-safety: thread-safe. A selector that is queued for leadership holds one thread (Curator's
 * LeaderSelector blocks it in the mutex's acquire); a closed or never-started one holds none, and the thread ends
 * 2 s after the work, if the selector is not queued again.
 *
 * <p>The recipe is meant to be copied into a Curator codebase as its own files plus the token type: its lifecycle and
 * close stay here; its grant ({@code SelectorGrant}) and its own node ({@code SelectorNode}) are package-private
 * classes beside it.
 */
public final class FencedLeaderSelector implements Closeable {

    /** How long {@link #close()} waits, by default, for the leader's work to return after interrupting it. */
    public static final long CLOSE_WAIT_MILLIS = 10_000;

    /** How long the selector's thread outlives the work when the selector is not queued again. */
    private static final long IDLE_THREAD_MILLIS = 2_000;

    /** Started selectors, by client, path and id: one id per client and path, or two could share a token. */
    private static final Set<Participant> STARTED = ConcurrentHashMap.newKeySet();

    private record Participant(CuratorFramework client, String path, String id) {}

    private static final Logger log = LoggerFactory.getLogger(FencedLeaderSelector.class);

    private enum Lifecycle {
        LATENT,
        STARTED,
        CLOSED
    }

    private final CuratorFramework client;
    private final String leaderPath;
    private final String participantId;
    private final FencedLeaderSelectorListener listener;
    private final Duration closeWait;
    private final LeaderSelector selector;
    private final ThreadPoolExecutor leaderThreads;
    /** Our own node: seen through the client view, read for the token at a grant. */
    private final SelectorNode ownNode;
    /** Guards Curator's start and close against each other. */
    private final Object curatorLifecycle = new Object();

    private boolean curatorStarted;
    private boolean released;
    /**
     * Curator's task is in or past our takeLeadership: the leader's work, then Curator's release of the node
     * (guarded by curatorLifecycle). A close then lets the task end before Curator's selector is closed.
     */
    private boolean leaderTask;
    /** Curator's selector was closed, or is being closed (guarded by curatorLifecycle): it is closed once. */
    private boolean curatorClosed;

    private final AtomicReference<Lifecycle> lifecycle = new AtomicReference<>(Lifecycle.LATENT);
    private final SelectorGrant grant = new SelectorGrant();
    private volatile Thread leaderThread;
    /** Taken to interrupt the leader's work and to end it: see {@link #interruptWork()}. */
    private final Object workEnd = new Object();
    /** Tests only: runs in {@link #interruptWork()} between reading the work's thread and interrupting it. */
    volatile Runnable beforeWorkInterrupt = () -> {};
    /** The progress deadline (off unless set); see {@link #setProgressDeadline(Duration)}. */
    private final ProgressWatch progress = new ProgressWatch(this::onStalled);

    /**
     * @param client        a Curator client; it must be started before {@link #start()}
     * @param leaderPath    the election path, e.g. {@code /app/billing-leader}; its nodes get the client's ACLs
     * @param participantId this participant's id, stored as its node's data; must be unique per participant
     * @param listener      the leader's work
     */
    public FencedLeaderSelector(
            CuratorFramework client, String leaderPath, String participantId, FencedLeaderSelectorListener listener) {
        this(client, leaderPath, participantId, listener, Duration.ofMillis(CLOSE_WAIT_MILLIS));
    }

    /**
     * @param client        a Curator client; it must be started before {@link #start()}
     * @param leaderPath    the election path, e.g. {@code /app/billing-leader}; its nodes get the client's ACLs
     * @param participantId this participant's id, stored as its node's data; must be unique per participant
     * @param listener      the leader's work
     * @param closeWait     how long {@link #close()} waits for the leader's work to return after interrupting it;
     *                      more than 0 and at most one hour
     */
    public FencedLeaderSelector(
            CuratorFramework client,
            String leaderPath,
            String participantId,
            FencedLeaderSelectorListener listener,
            Duration closeWait) {
        this(client, leaderPath, participantId, listener, closeWait, true);
    }

    /**
     * Test hook: a selector whose Curator selector is built on the raw client, not on the view ({@link CuratorTap}),
     * as if a later Curator built its requests in a way the view cannot see: the grant then takes the two-read path
     * (list the children, check the lowest node's owner and id). No level trigger is needed here: the grant is made
     * inside Curator's {@code takeLeadership}, and a grant that cannot be verified returns, releasing the lock.
     */
    static FencedLeaderSelector withoutClientView(
            CuratorFramework client, String leaderPath, String participantId, FencedLeaderSelectorListener listener) {
        return new FencedLeaderSelector(
                client, leaderPath, participantId, listener, Duration.ofMillis(CLOSE_WAIT_MILLIS), false);
    }

    private FencedLeaderSelector(
            CuratorFramework client,
            String leaderPath,
            String participantId,
            FencedLeaderSelectorListener listener,
            Duration closeWait,
            boolean clientView) {
        this.client = ElectionNodes.requireArgument(client, "client");
        this.leaderPath = ElectionNodes.requireElectionPath(leaderPath, "leaderPath");
        this.participantId = ElectionNodes.requireText(participantId, "participantId");
        this.listener = ElectionNodes.requireArgument(listener, "listener");
        this.closeWait = ElectionNodes.requireCloseWait(closeWait);
        ThreadFactory threads = ElectionNodes.namedDaemon("leasehold-selector-" + participantId);
        // After close() shut the pool down, Curator's next attempt is dropped, never thrown back at Curator: an
        // auto-requeued LeaderSelector (Curator 5.7 and later) queues again inside its task *before* it releases the
        // mutex, so an exception from that submit skipped the release and left the closed leader's node in place for
        // as long as the client's session lived: no other participant could lead (issue 41, item 6).
        this.leaderThreads =
                new ThreadPoolExecutor(
                        1,
                        1,
                        IDLE_THREAD_MILLIS,
                        TimeUnit.MILLISECONDS,
                        new LinkedBlockingQueue<>(),
                        threads,
                        new ThreadPoolExecutor.DiscardPolicy()) {
                    @Override
                    protected void afterExecute(Runnable task, Throwable thrown) {
                        curatorTaskEnded();
                    }
                };
        this.leaderThreads.allowCoreThreadTimeOut(true);
        this.ownNode = new SelectorNode(client, leaderPath, participantId);
        CuratorFramework tapped = clientView ? CuratorTap.tap(client, ownNode) : client;
        this.selector = new LeaderSelector(tapped, leaderPath, leaderThreads, new CuratorSide());
        this.selector.setId(participantId);
    }

    /**
     * Sets a progress deadline: while this participant leads, its work must call {@link #progress()} at least once
     * per {@code deadline}; if it does not, the selector gives leadership up as if lost. The token is withdrawn, the
     * work is interrupted, and this participant's node is deleted at once, without waiting for the work to return,
     * so that the next participant in the queue leads; when the work returns, the selector queues again at the back
     * (with {@link #autoRequeue()}, or on {@link #requeue()}). Off by default: a leader that holds its session keeps
     * leadership however long its work hangs.
     *
     * <p>IMPORTANT: work that ignores the interrupt (blocked on a lock that is not interruptible, say) may still run
     * and write beside the new leader: its token is lower than the new leader's, so a resource that checks tokens
     * refuses those writes. That is the point of the deadline: a stuck leader no longer stops the election; the
     * fence stops the stuck leader.
     *
     * <p>Choose a deadline well above the longest gap between two {@code progress()} calls of healthy work: a
     * deadline that is too short makes leadership flap. The clock starts at each grant.
     *
     * @param deadline more than 0 and at most one day
     * @throws IllegalArgumentException if {@code deadline} is null, zero, negative or longer than one day
     * @throws IllegalStateException    if the selector was already started
     */
    public void setProgressDeadline(Duration deadline) {
        Duration valid = ProgressWatch.requireDeadline(deadline);
        if (lifecycle.get() != Lifecycle.LATENT) {
            throw new IllegalStateException("[" + participantId + "] setProgressDeadline() must be called before"
                    + " start(); this selector is " + lifecycle.get());
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
     * Tells the selector that the leader's work advanced. Cheap (one volatile write: no lock, no I/O): call it from
     * the work loop as often as you like. Called while this participant does not lead, it is ignored (each grant
     * starts its own clock). Without a progress deadline it only feeds {@link #sinceProgress()}.
     */
    public void progress() {
        progress.progress();
    }

    /**
     * How long the leader's work has gone without calling {@link #progress()} (counted from the grant if it never
     * did), while this participant leads.
     *
     * @return the time since the last progress, empty while not leading
     */
    public Optional<Duration> sinceProgress() {
        return progress.sinceProgress();
    }

    /**
     * Why the last grant ended, as far as this selector withdrew it ({@link LossCause#STALLED}, {@link
     * LossCause#SUSPENDED}, {@link LossCause#LOST}, {@link LossCause#INTERRUPTED} or {@link LossCause#CLOSED}).
     *
     * @return the cause of the last withdrawal, empty if no grant was withdrawn yet (a grant whose work simply
     *     returned is not a withdrawal)
     */
    public Optional<LossCause> lastWithdrawal() {
        return grant.lastCause();
    }

    /** Rejoins the election each time leadership ends (including after a loss), until {@link #close()}. */
    public void autoRequeue() {
        selector.autoRequeue();
    }

    /**
     * Joins the election. A {@link #close()} racing this call wins: the selector then never creates a node.
     *
     * <p>First checks the Curator on the class path: one older than 5.4.0 is refused (the message names the version
     * found, the minimum and why); one newer than the newest tested (5.9.0), or whose version cannot be read (no
     * Curator manifest, as in some shaded jars), runs with one WARN per JVM. See {@code docs/curator-compatibility.md}.
     *
     * @throws IllegalStateException if the Curator on the class path is older than 5.4.0, the client is not started,
     *                               this selector was started or closed before, or another started selector on this
     *                               client and path has the same participant id
     */
    public void start() {
        CuratorVersion.requireSupported("FencedLeaderSelector '" + participantId + "' on " + leaderPath);
        ElectionNodes.requireStarted(client);
        if (!lifecycle.compareAndSet(Lifecycle.LATENT, Lifecycle.STARTED)) {
            throw new IllegalStateException("FencedLeaderSelector '" + participantId + "' on " + leaderPath + " is "
                    + lifecycle.get() + ": start() may be called once, on a selector that was never closed");
        }
        if (!ElectionNodes.suspendedIsError(client)) {
            log.warn(
                    "[{}] the client's ConnectionStateErrorPolicy keeps leadership while SUSPENDED: the leader's"
                            + " work is not interrupted until the session is LOST, so two participants can believe they lead"
                            + " for up to a session timeout; only the resource's token check then prevents double leaders",
                    participantId);
        }
        synchronized (curatorLifecycle) {
            if (released) {
                log.debug("[{}] closed while starting: not joining the election", participantId);
                return;
            }
            if (!STARTED.add(new Participant(client, leaderPath, participantId))) {
                released = true;
                lifecycle.set(Lifecycle.CLOSED);
                leaderThreads.shutdown();
                throw new IllegalStateException("[" + participantId + "] another FencedLeaderSelector with this"
                        + " participant id is started on this client and path " + leaderPath + ": they would share"
                        + " one token; give each participant its own id");
            }
            try {
                selector.start();
                curatorStarted = true;
            } catch (RuntimeException e) {
                STARTED.remove(new Participant(client, leaderPath, participantId));
                released = true;
                lifecycle.set(Lifecycle.CLOSED);
                leaderThreads.shutdown();
                throw new IllegalStateException(
                        "[" + participantId + "] could not start the selector on " + leaderPath, e);
            }
        }
    }

    /**
     * Re-enters the queue after leadership ended, when {@link #autoRequeue()} is off.
     *
     * @return {@code true} if it was queued, {@code false} if it already was
     */
    public boolean requeue() {
        if (lifecycle.get() != Lifecycle.STARTED) {
            throw new IllegalStateException(
                    "[" + participantId + "] requeue() needs a started selector, this one is " + lifecycle.get());
        }
        return selector.requeue();
    }

    /**
     * {@code true} while the leader's work runs with a token that has not been withdrawn. A belief, not a guarantee.
     *
     * @return whether this participant holds a token now
     */
    public boolean hasLeadership() {
        return currentToken().isPresent();
    }

    /**
     * The token of the current grant.
     *
     * @return the token, present only while this participant leads
     */
    public Optional<FencingToken> currentToken() {
        FencingToken token = grant.token();
        if (token == null || lifecycle.get() != Lifecycle.STARTED || !selector.hasLeadership()) {
            return Optional.empty();
        }
        return Optional.of(token);
    }

    /**
     * Who leads this election now, read from ZooKeeper (the election's children, then the lowest node: no watch).
     * A snapshot: see {@link LeaderInfo}.
     *
     * @return the leader's id and node, empty if nobody takes part
     * @throws IllegalStateException if ZooKeeper could not be read (the cause attached)
     */
    public Optional<LeaderInfo> currentLeader() {
        return ElectionNodes.readLeader(client, leaderPath, ElectionNodes.SELECTOR_MARKER);
    }

    /** Withdraws the token and interrupts the leader's work, if it runs; the participant stays in the election if auto-requeued. */
    public void interruptLeadership() {
        withdraw(LossCause.INTERRUPTED, "interruptLeadership() called");
    }

    /**
     * Why the grant of {@code token} was withdrawn: {@link LossCause#SUSPENDED} or {@link LossCause#LOST} (the
     * connection state that withdrew it), {@link LossCause#INTERRUPTED} ({@link #interruptLeadership()}) or {@link
     * LossCause#CLOSED}. Meant for the leader's work once it was interrupted.
     *
     * @param token a token this selector handed to the work
     * @return the cause, empty if that grant was not withdrawn (it still holds, or the work returned by itself), or
     *     if a later grant was withdrawn since
     */
    public Optional<LossCause> withdrawalCause(FencingToken token) {
        return grant.causeOf(token);
    }

    /** @return this participant's id, as given to the constructor */
    public String participantId() {
        return participantId;
    }

    /** @return the election path, as given to the constructor */
    public String leaderPath() {
        return leaderPath;
    }

    /**
     * Leaves the election: withdraws the token, interrupts the leader's work and waits up to the close wait for it to
     * return; the node is deleted after the work returned. Idempotent.
     *
     * <p>Work that ignores the interrupt keeps running, and keeps the node: no follower can lead, so its writes still
     * carry the highest token and the resource accepts them, until the work returns or the session ends. Called
     * from the work itself, or on a ZooKeeper or Curator thread, this does not wait.
     *
     * <p>The work is interrupted once. Curator may not queue this participant again (a new node, whose create a
     * later close would interrupt, leaving Curator a clean-up it cannot start once the client closes: {@code ERROR
     * ... Could not start guaranteed delete for node}), and Curator's selector is closed only after its task released
     * the node, so Curator does not interrupt that thread a second time inside the delete ({@code ERROR ... The leader
     * threw an exception}, an {@code InterruptedException}). A participant still queued is cancelled by Curator.
     */
    @Override
    public void close() {
        Lifecycle previous = lifecycle.getAndSet(Lifecycle.CLOSED);
        if (previous == Lifecycle.CLOSED) {
            return;
        }
        withdraw(LossCause.CLOSED, "closed", false); // the token now; the one interrupt below
        boolean closeCurator;
        boolean taskEndsFirst;
        synchronized (curatorLifecycle) {
            released = true;
            closeCurator = curatorStarted;
            if (curatorStarted) {
                STARTED.remove(new Participant(client, leaderPath, participantId));
            }
            taskEndsFirst = leaderTask;
        }
        leaderThreads.shutdown(); // Curator cannot queue this participant again: its next attempt is dropped
        if (taskEndsFirst) {
            // Leading, or Curator releasing the node: interrupt the work once; Curator's selector is closed when the
            // task ended (curatorTaskEnded), so Curator never interrupts that thread inside the release.
            interruptWork();
        } else if (closeCurator) {
            closeCuratorSelector(); // queued, not leading: Curator cancels the attempt, no leader work to hit
        }
        if (Thread.currentThread() == leaderThread || ElectionNodes.isZooKeeperOrCuratorThread()) {
            return;
        }
        try {
            if (leaderThreads.awaitTermination(closeWait.toMillis(), TimeUnit.MILLISECONDS)) {
                // What Curator's task left in flight (its clean-up of a create the close interrupted) is answered
                // while the client is still open: else Curator logs that it could not start its delete.
                ElectionNodes.awaitEarlierAnswers(client, leaderPath, closeWait);
            } else {
                log.warn(
                        "[{}] the leader's work ignored the interrupt for {} ms and still runs: it keeps its node, so"
                                + " no follower can lead and its writes still carry the highest token (the resource accepts"
                                + " them) until the work returns or the session ends",
                        participantId,
                        closeWait.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "FencedLeaderSelector[" + participantId + " on " + leaderPath + ", " + lifecycle.get() + ", token="
                + grant.token() + "]";
    }

    /** On the task's thread, after each of Curator's tasks: closes Curator's selector if {@link #close()} waits for it. */
    private void curatorTaskEnded() {
        boolean closing;
        synchronized (curatorLifecycle) {
            leaderTask = false;
            closing = released;
        }
        if (closing) {
            closeCuratorSelector();
        }
    }

    /** Closes Curator's selector once, on whichever thread comes first after {@link #close()}. */
    private void closeCuratorSelector() {
        synchronized (curatorLifecycle) {
            if (curatorClosed || !curatorStarted) {
                return;
            }
            curatorClosed = true;
        }
        try {
            selector.close();
        } catch (RuntimeException e) {
            log.warn(
                    "[{}] closing the Curator selector on {} failed; its node goes with the session",
                    participantId,
                    leaderPath,
                    e);
        }
    }

    /**
     * Any thread; waits only for the work's end to record itself. Interrupts the leader's work if it still runs. The
     * work's end takes the same lock, so the interrupt never comes after the work returned: it would land in Curator's
     * release of the node, after Curator cleared the flag, and fail its delete ({@code ERROR ... The leader threw an
     * exception}, an {@code InterruptedException}), leaving the node to Curator's guaranteed delete in the background,
     * or to the session's end if the client closes first. An interrupt sent before the work's end is cleared by
     * Curator before its release.
     *
     * @return the thread that ran the leader's work, or null
     */
    private Thread interruptWork() {
        synchronized (workEnd) {
            Thread worker = leaderThread;
            if (worker != null) {
                beforeWorkInterrupt.run();
                worker.interrupt();
            }
            return worker;
        }
    }

    /**
     * Any thread; waits at most for the work's end to record itself ({@link #interruptWork()}). Ends the current
     * grant, voids token reads in flight, interrupts the work.
     */
    private void withdraw(LossCause cause, String why) {
        withdraw(cause, why, true);
    }

    /**
     * Any thread; waits at most for the work's end to record itself ({@link #interruptWork()}). Ends the current
     * grant and voids token reads in flight; interrupts the work if asked.
     *
     * @return the thread running the leader's work, or null
     */
    private Thread withdraw(LossCause cause, String why, boolean interrupt) {
        // Records the cause before the interrupt below: the work reads it then.
        FencingToken withdrawn = grant.withdraw(cause);
        if (withdrawn != null) {
            progress.notLeading();
        }
        Thread worker = interrupt ? interruptWork() : leaderThread;
        if (withdrawn != null) {
            log.info("[{}] token {} withdrawn: {}", participantId, withdrawn.value(), why);
        }
        return worker;
    }

    /**
     * On the watch's timer thread; waits at most for the work's end to record itself. The grant of {@code token} made
     * no progress: withdraw it, interrupt the work, and delete our node now (in the background) so that the next
     * participant leads even if the work ignores the interrupt. Curator's own delete, when the work returns, then
     * finds no node, which it ignores.
     */
    private void onStalled(FencingToken token, Duration idle) {
        if (grant.token() != token) {
            return; // that grant already ended
        }
        withdraw(
                LossCause.STALLED,
                "no progress() for " + idle.toMillis() + " ms (deadline "
                        + progress.deadline().map(Duration::toMillis).orElse(0L) + " ms); giving our node up");
        ownNode.deleteStalled(token);
    }

    /** What Curator calls: takeLeadership on our own thread, stateChanged on Curator's connection-state thread. */
    private final class CuratorSide implements LeaderSelectorListener {

        @Override
        public void takeLeadership(CuratorFramework curator) throws Exception {
            synchronized (curatorLifecycle) {
                leaderTask = true; // until the task ended: see close()
            }
            SelectorGrant.Grant observed = grant.observe();
            if (lifecycle.get() != Lifecycle.STARTED) {
                return;
            }
            ElectionNodes.Read read;
            try {
                read = ownNode.readToken();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                log.warn(
                        "[{}] could not read the fencing token under {}; giving leadership up",
                        participantId,
                        leaderPath,
                        e);
                return;
            }
            if (!read.isGranted()) {
                log.warn(
                        "[{}] Curator granted leadership but the node was not verified as leader: {}; giving it up",
                        participantId,
                        read.refusal());
                return;
            }
            FencingToken token = read.token();
            leaderThread = Thread.currentThread();
            try {
                // Curator may grant while disconnected: its SUSPENDED can arrive between the mutex's acquire and
                // our first look at the grant, before `observed` was read, and the token came from a Stat without a
                // round trip. Disconnected now: give the grant up. Connected now: a later SUSPENDED bumps the
                // generation (the CAS below fails) or interrupts this thread (leaderThread is set).
                if (!ElectionNodes.isConnected(client)) {
                    log.info(
                            "[{}] Curator granted leadership while the connection is down; giving token {} up",
                            participantId,
                            token.value());
                    return;
                }
                // A loss while reading bumped the generation: the read is void.
                if (!grant.grant(observed, token)) {
                    log.info(
                            "[{}] leadership was lost while reading token {}; giving it up",
                            participantId,
                            token.value());
                    return;
                }
                progress.leading(token);
                if (grant.token() != token) {
                    progress.notLeading(); // withdrawn between the swap and leading(): disarm it
                }
                log.info(
                        "[{}] leading with token {} (0x{}) on {}",
                        participantId,
                        token.value(),
                        Long.toHexString(token.value()),
                        token.path());
                listener.takeLeadership(client, token); // the user's client, not the view given to Curator
            } catch (InterruptedException e) {
                log.info("[{}] leader work for token {} interrupted", participantId, token.value());
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                log.error("[{}] leader work for token {} threw; leadership ends", participantId, token.value(), e);
            } catch (Error e) {
                log.error(
                        "[{}] leader work for token {} threw an Error; leadership ends",
                        participantId,
                        token.value(),
                        e);
                throw e;
            } finally {
                synchronized (workEnd) {
                    leaderThread = null; // no interrupt of ours comes after this: see interruptWork()
                }
                progress.notLeading();
                grant.end(token);
                log.info("[{}] leadership with token {} ended", participantId, token.value());
            }
        }

        /**
         * On Curator's connection-state thread. Withdraws the token, then tells Curator to cancel this selector's
         * task (as its LeaderSelectorListenerAdapter does): leading or still waiting in the queue, the selector
         * leaves it, so a node of a session that may be gone never keeps it queued.
         */
        @Override
        public void stateChanged(CuratorFramework curator, ConnectionState newState) {
            // The token now; the interrupt is Curator's, on the exception: interrupting here too could hit the
            // work's thread a second time, inside Curator's release of the node (an ERROR of Curator's).
            if (newState == ConnectionState.LOST) {
                withdraw(LossCause.LOST, "connection LOST", false);
                throw new CancelLeadershipException();
            }
            if (newState == ConnectionState.SUSPENDED && ElectionNodes.suspendedIsError(client)) {
                withdraw(LossCause.SUSPENDED, "connection SUSPENDED", false);
                throw new CancelLeadershipException();
            }
        }
    }
}
