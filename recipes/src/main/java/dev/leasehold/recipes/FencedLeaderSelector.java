package dev.leasehold.recipes;

import java.io.Closeable;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.RetryLoop;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListener;
import org.apache.curator.framework.state.ConnectionState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Curator's {@link LeaderSelector}, handing the leader's work a {@link FencingToken}.
 *
 * <p>The election is Curator's (an InterProcessMutex: each participant watches only its predecessor). When
 * Curator hands this participant the lock, on the selector's own thread (never a ZooKeeper or Curator thread):
 * <ol>
 *   <li>the election path is listed, the lowest {@code lock-} node is read, and the token (its {@code czxid}) is
 *       handed out only if that node is owned by the client's current session <em>and</em> carries this
 *       participant's id (two selectors may share one client and so one session);</li>
 *   <li>{@link FencedLeaderSelectorListener#takeLeadership} runs with the token; leadership lasts until it
 *       returns, and then the node is deleted (so a follower starts only after the work stopped).</li>
 * </ol>
 * On SUSPENDED (under Curator's default error policy) and LOST, the token is withdrawn at once and the leader's
 * thread is interrupted. Code that ignores interrupts keeps running: only the resource's token check stops it.
 *
 * <p>The participant id is stored as the node's data and must be unique among participants.
 */
public final class FencedLeaderSelector implements Closeable {

    /** How long {@link #close()} waits for the leader's work to return after interrupting it. */
    public static final long CLOSE_WAIT_MILLIS = 10_000;

    private static final Logger log = LoggerFactory.getLogger(FencedLeaderSelector.class);

    private enum Lifecycle { LATENT, STARTED, CLOSED }

    /** Replaced, never mutated: identity is what compareAndSet compares. */
    private record Grant(FencingToken token, long generation) {}

    private final CuratorFramework client;
    private final String leaderPath;
    private final String participantId;
    private final FencedLeaderSelectorListener listener;
    private final LeaderSelector selector;
    private final ExecutorService leaderThreads;
    private final AtomicReference<Lifecycle> lifecycle = new AtomicReference<>(Lifecycle.LATENT);
    private final AtomicReference<Grant> grant = new AtomicReference<>(new Grant(null, 0));
    private volatile Thread leaderThread;

    /**
     * @param client        a Curator client; it must be started before {@link #start()}
     * @param leaderPath    the election path, e.g. {@code /app/billing-leader}; its nodes get the client's ACLs
     * @param participantId this participant's id, stored as its node's data; must be unique per participant
     * @param listener      the leader's work
     */
    public FencedLeaderSelector(CuratorFramework client, String leaderPath, String participantId,
                                FencedLeaderSelectorListener listener) {
        this.client = ElectionNodes.requireArgument(client, "client");
        this.leaderPath = ElectionNodes.requireElectionPath(leaderPath, "leaderPath");
        this.participantId = ElectionNodes.requireText(participantId, "participantId");
        this.listener = ElectionNodes.requireArgument(listener, "listener");
        ThreadFactory threads = ElectionNodes.namedDaemon("leasehold-selector-" + participantId);
        this.leaderThreads = Executors.newSingleThreadExecutor(threads);
        this.selector = new LeaderSelector(client, leaderPath, leaderThreads, new CuratorSide());
        this.selector.setId(participantId);
    }

    /** Rejoins the election each time leadership ends (including after a loss), until {@link #close()}. */
    public void autoRequeue() {
        selector.autoRequeue();
    }

    /**
     * Joins the election.
     *
     * @throws IllegalStateException if the client is not started, or this selector was started or closed before
     */
    public void start() {
        ElectionNodes.requireStarted(client);
        if (!lifecycle.compareAndSet(Lifecycle.LATENT, Lifecycle.STARTED)) {
            throw new IllegalStateException("FencedLeaderSelector '" + participantId + "' on " + leaderPath + " is "
                    + lifecycle.get() + ": start() may be called once, on a selector that was never closed");
        }
        if (!ElectionNodes.suspendedIsError(client)) {
            log.warn("[{}] the client's ConnectionStateErrorPolicy keeps leadership while SUSPENDED: the leader's"
                    + " work is not interrupted until the session is LOST, so two participants can believe they lead"
                    + " for up to a session timeout; only the resource's token check then prevents double leaders",
                    participantId);
        }
        selector.start();
    }

    /**
     * Re-enters the queue after leadership ended, when {@link #autoRequeue()} is off.
     *
     * @return {@code true} if it was queued, {@code false} if it already was
     */
    public boolean requeue() {
        if (lifecycle.get() != Lifecycle.STARTED) {
            throw new IllegalStateException("[" + participantId + "] requeue() needs a started selector, this one is "
                    + lifecycle.get());
        }
        return selector.requeue();
    }

    /** {@code true} while the leader's work runs with a token that has not been withdrawn. A belief, not a guarantee. */
    public boolean hasLeadership() {
        return currentToken().isPresent();
    }

    /** The token of the current grant; present only while this participant leads. */
    public Optional<FencingToken> currentToken() {
        FencingToken token = grant.get().token();
        if (token == null || lifecycle.get() != Lifecycle.STARTED || !selector.hasLeadership()) {
            return Optional.empty();
        }
        return Optional.of(token);
    }

    /** Withdraws the token and interrupts the leader's work, if it runs; the participant stays in the election if auto-requeued. */
    public void interruptLeadership() {
        withdraw("interruptLeadership() called");
    }

    public String participantId() {
        return participantId;
    }

    public String leaderPath() {
        return leaderPath;
    }

    /**
     * Leaves the election: withdraws the token, interrupts the leader's work and waits up to {@link
     * #CLOSE_WAIT_MILLIS} for it to return; the node is deleted after the work returned. Idempotent.
     *
     * <p>The work may be interrupted twice: once by the withdrawal, once more when Curator's selector cancels its
     * task. Work that clears the interrupt and then blocks (in a {@code finally}, say) can be interrupted again.
     */
    @Override
    public void close() {
        Lifecycle previous = lifecycle.getAndSet(Lifecycle.CLOSED);
        if (previous == Lifecycle.CLOSED) {
            return;
        }
        withdraw("closed");
        if (previous == Lifecycle.STARTED) {
            try {
                selector.close();
            } catch (RuntimeException e) {
                log.warn("[{}] closing the Curator selector on {} failed; its node goes with the session",
                        participantId, leaderPath, e);
            }
        }
        leaderThreads.shutdown();
        if (Thread.currentThread() != leaderThread) {
            try {
                if (!leaderThreads.awaitTermination(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                    log.warn("[{}] the leader's work ignored the interrupt for {} ms; it may still write with its"
                            + " old token, which the resource must reject", participantId, CLOSE_WAIT_MILLIS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return "FencedLeaderSelector[" + participantId + " on " + leaderPath + ", " + lifecycle.get() + ", token="
                + grant.get().token() + "]";
    }

    /** Any thread; never blocks. Ends the current grant, voids token reads in flight, interrupts the work. */
    private void withdraw(String why) {
        Grant current;
        do {
            current = grant.get();
        } while (!grant.compareAndSet(current, new Grant(null, current.generation() + 1)));
        Thread worker = leaderThread;
        if (worker != null) {
            worker.interrupt();
        }
        if (current.token() != null) {
            log.info("[{}] token {} withdrawn: {}", participantId, current.token().value(), why);
        }
    }

    /** What Curator calls: takeLeadership on our own thread, stateChanged on Curator's connection-state thread. */
    private final class CuratorSide implements LeaderSelectorListener {

        @Override
        public void takeLeadership(CuratorFramework curator) throws Exception {
            Grant observed = grant.get();
            if (lifecycle.get() != Lifecycle.STARTED) {
                return;
            }
            ElectionNodes.Read read;
            try {
                read = RetryLoop.callWithRetry(client.getZookeeperClient(),
                        () -> ElectionNodes.readSelectorToken(client, leaderPath, participantId));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                log.warn("[{}] could not read the fencing token under {}; giving leadership up", participantId,
                        leaderPath, e);
                return;
            }
            if (!read.isGranted()) {
                log.warn("[{}] Curator granted leadership but the node was not verified as leader: {}; giving it up",
                        participantId, read.refusal());
                return;
            }
            FencingToken token = read.token();
            leaderThread = Thread.currentThread();
            try {
                // A loss while reading bumped the generation: the read is void.
                if (!grant.compareAndSet(observed, new Grant(token, observed.generation() + 1))) {
                    log.info("[{}] leadership was lost while reading token {}; giving it up", participantId,
                            token.value());
                    return;
                }
                log.info("[{}] leading with token {} (0x{}) on {}", participantId, token.value(),
                        Long.toHexString(token.value()), token.path());
                listener.takeLeadership(curator, token);
            } catch (InterruptedException e) {
                log.info("[{}] leader work for token {} interrupted", participantId, token.value());
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                log.error("[{}] leader work for token {} threw; leadership ends", participantId, token.value(), e);
            } finally {
                leaderThread = null;
                Grant current = grant.get();
                if (current.token() == token) {
                    grant.compareAndSet(current, new Grant(null, current.generation() + 1));
                }
                log.info("[{}] leadership with token {} ended", participantId, token.value());
            }
        }

        @Override
        public void stateChanged(CuratorFramework curator, ConnectionState newState) {
            if (newState == ConnectionState.LOST
                    || (newState == ConnectionState.SUSPENDED && ElectionNodes.suspendedIsError(client))) {
                withdraw("connection " + newState);
            }
        }
    }
}
