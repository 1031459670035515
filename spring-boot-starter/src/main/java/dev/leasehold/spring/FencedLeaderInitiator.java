package dev.leasehold.spring;

import dev.leasehold.recipes.FencedLeaderSelector;
import dev.leasehold.recipes.FencedLeaderSelectorListener;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.recipes.LeaderInfo;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.SmartLifecycle;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.leader.event.LeaderEventPublisher;

/**
 * Runs a Spring Integration {@link Candidate} in a fenced election: a {@link FencedLeaderSelector} on
 * {@code electionRoot + "/" + candidate.getRole()}, with {@code candidate.getId()} as the participant id.
 *
 * <p>The candidate is called, and the events published, on the initiator's own thread (never a ZooKeeper or
 * Curator thread, never under a lock), one call at a time:
 * <ol>
 *   <li>grant: {@code candidate.onGranted(context)}, then an {@code OnGrantedEvent}; the context is a
 *       {@link FencedContext} carrying the grant's {@link FencingToken};</li>
 *   <li>the selector's thread then waits until the token is withdrawn (SUSPENDED, LOST,
 *       {@link FencedContext#yield()}, {@link #stop()});</li>
 *   <li>loss, after the token was withdrawn: {@code candidate.onRevoked(context)}, then an {@code OnRevokedEvent};
 *       only after {@code onRevoked} returned is the election node deleted and can another participant lead.</li>
 * </ol>
 * The participant then queues again, until {@link #stop()}.
 *
 * <p>IMPORTANT: {@code onGranted} should start the leader's work and return; {@code onRevoked} should stop that
 * work and return only once it stopped. Until then this participant keeps its node, so no other participant leads.
 * {@code onRevoked} runs on a thread that the loss does not interrupt, so it may wait for the work. An
 * {@code onRevoked} that never returns keeps the node, and so leadership, until the session ends.
 *
 * <p>{@link #stop()} (the context closing) withdraws the token, waits up to the close wait for {@code onRevoked} to
 * return, and the node is deleted only after it returned. It never closes the Curator client: that is the client's owner's job,
 * after this initiator stopped.
 *
 * <p>Thread-safety: thread-safe. Start and stop are meant for the application context's lifecycle thread.
 */
public final class FencedLeaderInitiator implements SmartLifecycle, ApplicationEventPublisherAware {

    /** The phase of Spring Integration's own leader initiators: started late, stopped early. */
    public static final int PHASE = Integer.MAX_VALUE - 1000;

    private static final Logger log = LoggerFactory.getLogger(FencedLeaderInitiator.class);

    private final CuratorFramework client;
    private final Candidate candidate;
    private final String role;
    private final String participantId;
    private final String electionPath;
    private final Duration closeWait;
    private volatile LeaderEventPublisher publisher;
    private volatile boolean publisherSet;
    private volatile Run run;
    /** The last selector started: kept after stop so {@link #currentLeader()} can still read the election. */
    private volatile FencedLeaderSelector lastSelector;
    private final Object lifecycle = new Object();

    /**
     * An initiator that waits up to {@link FencedLeaderSelector#CLOSE_WAIT_MILLIS} for {@code onRevoked} at stop.
     *
     * @param client       a Curator client, started before {@link #start()}; this initiator never closes it
     * @param candidate    the candidate; its role must be a non-blank znode name and its id non-blank and unique
     * @param electionRoot the path under which each role has its election, e.g. {@code /leasehold/election}
     * @throws IllegalArgumentException if an argument is missing or not allowed (the message says which)
     */
    public FencedLeaderInitiator(CuratorFramework client, Candidate candidate, String electionRoot) {
        this(client, candidate, electionRoot, Duration.ofMillis(FencedLeaderSelector.CLOSE_WAIT_MILLIS));
    }

    /**
     * @param client       a Curator client, started before {@link #start()}; this initiator never closes it
     * @param candidate    the candidate; its role must be a non-blank znode name and its id non-blank and unique
     * @param electionRoot the path under which each role has its election, e.g. {@code /leasehold/election}
     * @param closeWait    how long {@link #stop()} waits for {@code onRevoked} to return; more than 0, at most 1 h
     * @throws IllegalArgumentException if an argument is missing or not allowed (the message says which)
     */
    public FencedLeaderInitiator(CuratorFramework client, Candidate candidate, String electionRoot,
                                 Duration closeWait) {
        if (client == null) {
            throw new IllegalArgumentException("client must not be null");
        }
        if (candidate == null) {
            throw new IllegalArgumentException("candidate must not be null");
        }
        this.client = client;
        this.candidate = candidate;
        this.role = ElectionPaths.requireRole(candidate.getRole(), candidate);
        this.participantId = ElectionPaths.requireId(candidate.getId(), candidate);
        this.electionPath = ElectionPaths.join(ElectionPaths.requireRoot(electionRoot), role);
        if (closeWait == null || closeWait.compareTo(Duration.ZERO) <= 0 || closeWait.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("closeWait must be more than 0 and at most 1 hour, was " + closeWait);
        }
        this.closeWait = closeWait;
    }

    /**
     * Publishes the leader events through this publisher instead of the application context's.
     *
     * @param publisher the publisher of {@code OnGrantedEvent} and {@code OnRevokedEvent}
     */
    public void setLeaderEventPublisher(LeaderEventPublisher publisher) {
        if (publisher == null) {
            throw new IllegalArgumentException("publisher must not be null");
        }
        this.publisher = publisher;
        this.publisherSet = true;
    }

    /** Called by the application context: leader events go to its listeners unless a publisher was set. */
    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher applicationEventPublisher) {
        if (!publisherSet) {
            this.publisher = new DefaultLeaderEventPublisher(applicationEventPublisher);
        }
    }

    /**
     * Joins the election with a new {@link FencedLeaderSelector}. Does nothing if already running.
     *
     * @throws IllegalStateException if the client is not started, or another participant with this id is started
     *                               on this client and election path
     */
    @Override
    public void start() {
        synchronized (lifecycle) {
            if (run != null) {
                return;
            }
            Run next = new Run();
            FencedLeaderSelector selector = new FencedLeaderSelector(client, electionPath, participantId, next,
                    closeWait);
            next.selector = selector;
            selector.autoRequeue();
            selector.start();
            lastSelector = selector;
            run = next;
            log.info("[{}] joined the election for role '{}' on {}", participantId, role, electionPath);
        }
    }

    /**
     * Leaves the election: withdraws the token and waits up to the close wait for {@code onRevoked} (the leader's work
     * stopping) to return; the node is deleted after it returned. Does nothing if not running.
     */
    @Override
    public void stop() {
        Run stopping;
        synchronized (lifecycle) {
            stopping = run;
            run = null;
        }
        if (stopping != null) {
            stopping.stop();
        }
    }

    /**
     * Whether this initiator takes part in the election.
     *
     * @return {@code true} between {@link #start()} and {@link #stop()}
     */
    @Override
    public boolean isRunning() {
        return run != null;
    }

    /**
     * Started after, and stopped before, the beans the leader's work uses.
     *
     * @return {@value #PHASE}
     */
    @Override
    public int getPhase() {
        return PHASE;
    }

    /**
     * The candidate's role.
     *
     * @return the role, which names the election
     */
    public String role() {
        return role;
    }

    /**
     * The candidate's id.
     *
     * @return this participant's id in the election
     */
    public String participantId() {
        return participantId;
    }

    /**
     * The election's path.
     *
     * @return the election root, then the role
     */
    public String electionPath() {
        return electionPath;
    }

    /**
     * The candidate this initiator runs.
     *
     * @return the candidate
     */
    public Candidate candidate() {
        return candidate;
    }

    /**
     * Whether this participant leads. A belief, not a guarantee.
     *
     * @return {@code true} while this participant holds a token that has not been withdrawn
     */
    public boolean isLeader() {
        return currentToken().isPresent();
    }

    /**
     * The token of the current grant.
     *
     * @return the token; empty unless this participant leads
     */
    public Optional<FencingToken> currentToken() {
        Run current = run;
        return current == null ? Optional.empty() : current.selector.currentToken();
    }

    /**
     * Who leads this role's election now, read from ZooKeeper (two reads, no watch). A snapshot: see
     * {@link LeaderInfo}.
     *
     * @return the leader; empty if nobody takes part or this initiator was never started
     *
     * @throws IllegalStateException if ZooKeeper could not be read (the cause attached)
     */
    public Optional<LeaderInfo> currentLeader() {
        FencedLeaderSelector selector = lastSelector;
        return selector == null ? Optional.empty() : selector.currentLeader();
    }

    @Override
    public String toString() {
        return "FencedLeaderInitiator[" + participantId + ", role=" + role + ", on " + electionPath + ", running="
                + isRunning() + "]";
    }

    /**
     * One start-to-stop of the initiator: its selector, the thread that calls the candidate, and the current grant.
     *
     * <p>The candidate is called on its own thread, not the selector's: the selector's thread is interrupted on a loss
     * and again when the selector closes, and {@code onRevoked} must be able to wait for the leader's work to stop.
     * The selector's thread waits for {@code onRevoked} without heeding interrupts, then returns, and only then does
     * Curator delete the node.
     */
    private final class Run implements FencedLeaderSelectorListener {

        private FencedLeaderSelector selector;
        private final ThreadPoolExecutor callbacks;
        private volatile Grant grant;
        private volatile boolean stopping;

        Run() {
            callbacks = new ThreadPoolExecutor(1, 1, 2, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), work -> {
                Thread thread = new Thread(work, "leasehold-candidate-" + participantId);
                thread.setDaemon(true);
                return thread;
            });
            callbacks.allowCoreThreadTimeOut(true);
        }

        @Override
        public void takeLeadership(CuratorFramework curator, FencingToken token) {
            if (stopping) {
                return; // queued again while stopping: give the node up at once, tell the candidate nothing
            }
            Grant current = new Grant(token, this);
            grant = current;
            LeaderEventPublisher events = publisher;
            AtomicBoolean granted = new AtomicBoolean();
            try {
                Future<?> onGranted = callbacks.submit(() -> {
                    candidate.onGranted(current);
                    if (events != null) {
                        events.publishOnGranted(FencedLeaderInitiator.this, current, role);
                    }
                    granted.set(true);
                    return null;
                });
                onGranted.get();
                current.awaitWithdrawal();
            } catch (InterruptedException e) {
                log.debug("[{}] token {} withdrawn", participantId, token.value());
            } catch (ExecutionException e) {
                log.error("[{}] onGranted for role '{}' with token {} threw; giving leadership up", participantId,
                        role, token.value(), e.getCause());
            } catch (RejectedExecutionException e) {
                log.debug("[{}] stopped before onGranted for token {}", participantId, token.value());
            } finally {
                current.end();
                awaitRevoked(current, events, granted.get());
                grant = null;
            }
        }

        /** Queues onRevoked after onGranted and waits for it, heeding no interrupt (restored afterwards). */
        private void awaitRevoked(Grant current, LeaderEventPublisher events, boolean granted) {
            Future<?> onRevoked;
            try {
                onRevoked = callbacks.submit(() -> revoke(current, events, granted));
            } catch (RejectedExecutionException e) {
                revoke(current, events, granted); // the executor is shut down only after the selector closed
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

        private void revoke(Grant current, LeaderEventPublisher events, boolean granted) {
            try {
                candidate.onRevoked(current);
            } catch (RuntimeException e) {
                log.error("[{}] onRevoked for role '{}' with token {} threw", participantId, role,
                        current.token().value(), e);
            }
            if (granted && events != null) {
                try {
                    events.publishOnRevoked(FencedLeaderInitiator.this, current, role);
                } catch (RuntimeException e) {
                    log.error("[{}] a listener of OnRevokedEvent for role '{}' threw", participantId, role, e);
                }
            }
        }

        /**
         * Ends the grant, if any, and waits up to the close wait for its node to be deleted (after {@code onRevoked}
         * returned), then closes the selector. Closing the selector first would interrupt the selector's thread a
         * second time, possibly while Curator deletes the node.
         */
        void stop() {
            stopping = true;
            Grant current = grant;
            if (current != null) {
                selector.interruptLeadership();
                if (!NodeWatch.awaitDeleted(client, current.token().path(), closeWait)) {
                    log.warn("[{}] could not see the node of token {} deleted within {} ms (onRevoked still running,"
                            + " or ZooKeeper unreachable); closing the selector anyway", participantId,
                            current.token().value(), closeWait.toMillis());
                }
            }
            selector.close();
            callbacks.shutdown();
            log.info("[{}] left the election for role '{}' on {}", participantId, role, electionPath);
        }

        /** Called by a grant's yield(): withdraws its token if it is still the current grant. */
        void yieldGrant(Grant current) {
            if (grant == current && current.isLeader()) {
                log.info("[{}] yielding leadership of role '{}' (token {})", participantId, role,
                        current.token().value());
                selector.interruptLeadership();
            }
        }
    }

    /** The context of one grant. */
    private final class Grant implements FencedContext {

        private final FencingToken token;
        private final Run owner;
        private final CountDownLatch withdrawn = new CountDownLatch(1);
        private volatile boolean ended;

        Grant(FencingToken token, Run owner) {
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
