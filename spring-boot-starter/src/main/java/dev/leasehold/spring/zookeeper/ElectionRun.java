package dev.leasehold.spring.zookeeper;

import dev.leasehold.recipes.FencedLeaderListener;
import dev.leasehold.recipes.FencedLeaderSelector;
import dev.leasehold.recipes.FencedLeaderSelectorListener;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.recipes.LossCause;
import dev.leasehold.spring.FencedContext;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.event.LeaderEventPublisher;

/**
 * One start-to-stop of the initiator: its selector, the thread that calls the candidate, and the current grant.
 *
 * <p>The candidate is called on its own thread, not the selector's: the selector's thread is interrupted on a loss
 * or when the selector closes, and {@code onRevoked} must be able to wait for the leader's work to stop.
 * The selector's thread waits for {@code onRevoked} without heeding interrupts, then returns, and only then does
 * Curator delete the node.
 *
 * <p>Thread-safety: thread-safe; used by one {@link FencedLeaderInitiator}.
 *
 * <p>Why one file of more than 300 lines: one grant's whole course (grant, candidate, revoke, release) runs on one
 * thread here, and its ordering is the point.
 */
final class ElectionRun implements FencedLeaderSelectorListener {

    private static final Logger log = LoggerFactory.getLogger(FencedLeaderInitiator.class);

    /** The first wait before a grant that follows an {@code onGranted} that threw; doubled per failure in a row. */
    static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
    /** The longest such wait. */
    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

    private final Object source;
    private final CuratorFramework client;
    private final Candidate candidate;
    private final String role;
    private final String participantId;
    private final String electionPath;
    private final Supplier<LeaderEventPublisher> publisher;
    private final List<FencedLeaderListener> listeners;

    private FencedLeaderSelector selector;
    private final ThreadPoolExecutor callbacks;
    private volatile Grant grant;
    private volatile boolean stopping;
    /** {@code onGranted} calls that threw in a row, and when the next grant may call it again (selector's thread). */
    private int failuresInARow;

    private long nextGrantNanos;

    ElectionRun(
            Object source,
            CuratorFramework client,
            Candidate candidate,
            String role,
            String participantId,
            String electionPath,
            Supplier<LeaderEventPublisher> publisher,
            List<FencedLeaderListener> listeners) {
        this.source = source;
        this.client = client;
        this.candidate = candidate;
        this.role = role;
        this.participantId = participantId;
        this.electionPath = electionPath;
        this.publisher = publisher;
        this.listeners = listeners;
        callbacks = new ThreadPoolExecutor(1, 1, 2, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), work -> {
            Thread thread = new Thread(work, "leasehold-candidate-" + participantId);
            thread.setDaemon(true);
            return thread;
        });
        callbacks.allowCoreThreadTimeOut(true);
    }

    @Override
    public void takeLeadership(CuratorFramework curator, FencingToken token) {
        if (stopping || !backedOff(token)) {
            return; // queued again while stopping, or withdrawn while backing off: give the node up, tell nothing
        }
        Grant current = new Grant(token, this);
        grant = current;
        // Set on the candidate's thread once OnGrantedEvent is being published; read there too, by the revocation
        // queued after it: so a published grant is always followed by its OnRevokedEvent, whenever the loss came.
        AtomicBoolean published = new AtomicBoolean();
        List<FencedLeaderListener> told = List.copyOf(listeners); // the same ones hear the grant and its loss
        LossCause cause = LossCause.INTERRUPTED;
        tellAcquired(told, token);
        try {
            Future<?> onGranted = callbacks.submit(() -> {
                candidate.onGranted(current);
                publishGranted(current, published);
                return null;
            });
            onGranted.get();
            failuresInARow = 0;
            current.awaitWithdrawal();
        } catch (InterruptedException e) {
            log.debug("[{}] token {} withdrawn", participantId, token.value());
            cause = withdrawalCause(current);
        } catch (ExecutionException e) {
            Duration backoff = backOff();
            log.error(
                    "[{}] onGranted for role '{}' with token {} threw; giving leadership up, next grant in {} ms at"
                            + " the earliest",
                    participantId,
                    role,
                    token.value(),
                    backoff.toMillis(),
                    e.getCause());
        } catch (RejectedExecutionException e) {
            log.debug("[{}] stopped before onGranted for token {}", participantId, token.value());
            cause = LossCause.CLOSED;
        } finally {
            current.end();
            tellLost(told, token, cause);
            awaitRevoked(current, published);
            grant = null;
        }
    }

    /** On the candidate's thread: publishes OnGrantedEvent; a listener that throws is logged, leadership stays. */
    private void publishGranted(Grant current, AtomicBoolean published) {
        LeaderEventPublisher events = publisher.get();
        if (events == null) {
            return;
        }
        published.set(true); // before: a listener may have heard it even if a later one throws
        try {
            events.publishOnGranted(source, current, role);
        } catch (RuntimeException e) {
            // As Spring Integration's initiators do (INT-4220): an event listener's failure is not the candidate's.
            log.error(
                    "[{}] a listener of OnGrantedEvent for role '{}' (token {}) threw; still leading",
                    participantId,
                    role,
                    current.token().value(),
                    e);
        }
    }

    /** Records one more onGranted failure in a row; returns the wait before the next grant may call it. */
    private Duration backOff() {
        failuresInARow++;
        long millis = FIRST_BACKOFF.toMillis() << Math.min(failuresInARow - 1, 10);
        Duration wait = Duration.ofMillis(Math.min(millis, MAX_BACKOFF.toMillis()));
        nextGrantNanos = System.nanoTime() + wait.toNanos();
        return wait;
    }

    /**
     * After an {@code onGranted} that threw, waits out the back-off before calling it again, so a lone participant
     * is not granted in a tight loop (the node was released at once, so any other participant led first). The wait
     * ends early if the token is withdrawn.
     *
     * @return {@code false} if the token was withdrawn while waiting
     */
    private boolean backedOff(FencingToken token) {
        long left = failuresInARow == 0 ? 0 : nextGrantNanos - System.nanoTime();
        if (left <= 0) {
            return true;
        }
        log.info(
                "[{}] waiting {} ms before calling onGranted again (token {})", participantId, left / 1_000_000, token);
        try {
            TimeUnit.NANOSECONDS.sleep(left); // the back-off itself; a withdrawal interrupts it
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Why the token was withdrawn: this initiator stopping, a yield, else what the selector says withdrew it (the
     * connection state: SUSPENDED or LOST).
     */
    private LossCause withdrawalCause(Grant current) {
        if (stopping) {
            return LossCause.CLOSED;
        }
        if (current.yielded) {
            return LossCause.INTERRUPTED;
        }
        return selector.withdrawalCause(current.token())
                .orElseGet(() -> client.getConnectionStateErrorPolicy().isErrorState(ConnectionState.SUSPENDED)
                        ? LossCause.SUSPENDED
                        : LossCause.LOST);
    }

    private void tellAcquired(List<FencedLeaderListener> told, FencingToken token) {
        for (FencedLeaderListener listener : told) {
            try {
                listener.leadershipAcquired(token);
            } catch (RuntimeException e) {
                log.warn("[{}] a listener threw on the grant of token {}", participantId, token.value(), e);
            }
        }
    }

    private void tellLost(List<FencedLeaderListener> told, FencingToken token, LossCause cause) {
        for (FencedLeaderListener listener : told) {
            try {
                listener.leadershipLost(token, cause);
            } catch (RuntimeException e) {
                log.warn("[{}] a listener threw on the loss of token {} ({})", participantId, token.value(), cause, e);
            }
        }
    }

    /**
     * Queues onRevoked after onGranted (one thread, in order: it runs once onGranted and its event are done) and
     * waits for it, heeding no interrupt (restored afterwards).
     */
    private void awaitRevoked(Grant current, AtomicBoolean published) {
        Future<?> onRevoked;
        try {
            onRevoked = callbacks.submit(() -> revoke(current, published.get()));
        } catch (RejectedExecutionException e) {
            revoke(current, published.get()); // the executor is shut down only after the selector closed
            return;
        }
        boolean interrupted = false;
        while (true) {
            try {
                onRevoked.get();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException e) {
                log.error("[{}] revoking role '{}' failed", participantId, role, e.getCause());
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The publisher current now (one set while leading hears this revocation), if the grant was published. */
    private void revoke(Grant current, boolean published) {
        try {
            candidate.onRevoked(current);
        } catch (RuntimeException e) {
            log.error(
                    "[{}] onRevoked for role '{}' with token {} threw",
                    participantId,
                    role,
                    current.token().value(),
                    e);
        }
        LeaderEventPublisher events = publisher.get();
        if (published && events != null) {
            try {
                events.publishOnRevoked(source, current, role);
            } catch (RuntimeException e) {
                log.error("[{}] a listener of OnRevokedEvent for role '{}' threw", participantId, role, e);
            }
        }
    }

    /**
     * Closes the selector, which ends the grant, if any, and waits up to the close wait for the selector's thread:
     * it returns after {@code onRevoked} returned, and Curator deletes the node before the thread ends. Closed
     * first, Curator's selector does not queue again when the grant ends (ending the grant first, then closing,
     * made Curator create a new node while the context closed, and log an ERROR when that create was interrupted
     * and its clean-up could not start on the closed client).
     */
    void stop() {
        stopping = true;
        client.getConnectionStateListenable().removeListener(joinedLog);
        selector.close(); // logs a warning if the thread outlived the close wait (onRevoked still running)
        callbacks.shutdown();
        log.info("[{}] left the election for role '{}' on {}", participantId, role, electionPath);
    }

    /**
     * Joins the election with this selector, whose listener this run is. "Joined" is logged once the client is
     * connected (the selector's node can only be created then), not before.
     */
    void start(FencedLeaderSelector selector) {
        this.selector = selector;
        selector.autoRequeue();
        selector.start();
        if (client.getZookeeperClient().isConnected()) {
            logJoined();
        } else {
            log.info(
                    "[{}] waiting for ZooKeeper ({}) to join the election for role '{}'",
                    participantId,
                    client.getZookeeperClient().getCurrentConnectionString(),
                    role);
            client.getConnectionStateListenable().addListener(joinedLog);
        }
    }

    private final ConnectionStateListener joinedLog = new ConnectionStateListener() {
        @Override
        public void stateChanged(CuratorFramework c, ConnectionState state) {
            if (state.isConnected()) {
                c.getConnectionStateListenable().removeListener(this);
                if (!stopping) {
                    logJoined();
                }
            }
        }
    };

    private void logJoined() {
        log.info("[{}] joined the election for role '{}' on {}", participantId, role, electionPath);
    }

    /** The token of the current grant, if this participant leads. */
    Optional<FencingToken> currentToken() {
        return selector.currentToken();
    }

    /** Called by a grant's yield(): withdraws its token if it is still the current grant. */
    void yieldGrant(Grant current) {
        if (grant == current && current.isLeader()) {
            current.yielded = true;
            log.info(
                    "[{}] yielding leadership of role '{}' (token {})",
                    participantId,
                    role,
                    current.token().value());
            selector.interruptLeadership();
        }
    }

    /** The context of one grant. */
    private final class Grant implements FencedContext {

        private final FencingToken token;
        private final ElectionRun owner;
        private final CountDownLatch withdrawn = new CountDownLatch(1);
        private volatile boolean ended;
        private volatile boolean yielded;

        Grant(FencingToken token, ElectionRun owner) {
            this.token = token;
            this.owner = owner;
        }

        @Override
        public FencingToken token() {
            return token;
        }

        @Override
        public boolean isLeader() {
            return !ended && owner.selector.currentToken().filter(token::equals).isPresent();
        }

        @Override
        public void yield() {
            owner.yieldGrant(this);
        }

        @Override
        public void progress() {
            if (!ended) {
                owner.selector.progress();
            }
        }

        @Override
        public String getRole() {
            return role;
        }

        /** Blocks until the selector interrupts this thread (the token was withdrawn). */
        void awaitWithdrawal() throws InterruptedException {
            withdrawn.await(); // counted down by nobody: only the interrupt ends the wait
        }

        void end() {
            ended = true;
        }

        @Override
        public String toString() {
            return "FencedContext[role=" + role + ", token=" + token + ", leader=" + isLeader() + "]";
        }
    }
}
