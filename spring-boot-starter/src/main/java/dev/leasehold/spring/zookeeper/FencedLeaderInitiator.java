package dev.leasehold.spring.zookeeper;

import dev.leasehold.recipes.FencedLeaderListener;
import dev.leasehold.recipes.FencedLeaderSelector;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.recipes.LeaderInfo;
import dev.leasehold.spring.FencedContext;
import dev.leasehold.spring.internal.ElectionPaths;
import dev.leasehold.spring.internal.InitiatorSettings;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.SmartLifecycle;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.event.LeaderEventPublisher;

/**
 * Runs a Spring Integration {@link Candidate} in a fenced election: a {@link FencedLeaderSelector} on
 * {@code electionRoot + "/" + candidate.getRole()}, with {@code candidate.getId()} as the participant id unless one is
 * given (the starter gives one to a candidate that names no id of its own: see docs/spring-boot.md).
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
 * <p>Every published {@code OnGrantedEvent} is followed by its {@code OnRevokedEvent}, whenever the loss comes (even
 * while the grant's event is still being delivered, or when {@code onGranted} itself yields). A listener of {@code
 * OnGrantedEvent} that throws is logged and leadership stays (as Spring Integration's own initiators do). An {@code
 * onGranted} that throws gives leadership up (the node is released at once, so another participant may lead) and
 * this participant's next {@code onGranted} waits first: 1 s, doubled for each failure in a row, at most 30 s.
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
    private final List<FencedLeaderListener> listeners = new CopyOnWriteArrayList<>();
    private final InitiatorSettings settings = new InitiatorSettings();
    private volatile ElectionRun run;
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
    public FencedLeaderInitiator(
            CuratorFramework client, Candidate candidate, String electionRoot, Duration closeWait) {
        this(client, candidate, candidate == null ? null : candidate.getId(), electionRoot, closeWait);
    }

    /**
     * An initiator whose participant id is given, not the candidate's {@code getId()}: the starter gives each
     * candidate that names no id of its own this instance's id ({@code leasehold.election.participant-id}, or host,
     * pid and a random part).
     *
     * @param client        a Curator client, started before {@link #start()}; this initiator never closes it
     * @param candidate     the candidate; its role must be a non-blank znode name
     * @param participantId this participant's id in the election: non-blank and unique among the participants
     * @param electionRoot  the path under which each role has its election, e.g. {@code /leasehold/election}
     * @param closeWait     how long {@link #stop()} waits for {@code onRevoked} to return; more than 0, at most 1 h
     * @throws IllegalArgumentException if an argument is missing or not allowed (the message says which)
     */
    public FencedLeaderInitiator(
            CuratorFramework client,
            Candidate candidate,
            String participantId,
            String electionRoot,
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
        this.participantId = ElectionPaths.requireId(participantId, candidate);
        this.electionPath = ElectionPaths.join(ElectionPaths.requireRoot(electionRoot), role);
        if (closeWait == null
                || closeWait.compareTo(Duration.ZERO) <= 0
                || closeWait.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("closeWait must be more than 0 and at most 1 hour, was " + closeWait);
        }
        this.closeWait = closeWait;
    }

    /**
     * Publishes the leader events through this publisher instead of the application context's. May be called at any
     * time: each event goes to the publisher set when it is published, so a publisher set while leading publishes
     * that grant's {@code OnRevokedEvent} (the grant's {@code OnGrantedEvent} went to the one before).
     *
     * @param publisher the publisher of {@code OnGrantedEvent} and {@code OnRevokedEvent}
     */
    public void setLeaderEventPublisher(LeaderEventPublisher publisher) {
        settings.setLeaderEventPublisher(publisher);
    }

    /**
     * Adds a listener told of each grant and its end, for meters and logs (the starter adds Micrometer's
     * {@code ElectionMeters} this way). It is told on the election's own thread (never a ZooKeeper or Curator
     * thread, never under a lock): {@code leadershipAcquired} before {@code onGranted} is called, and
     * {@code leadershipLost} as soon as the token was withdrawn, before {@code onRevoked} is called. The loss cause
     * is {@code CLOSED} when this initiator stops, {@code INTERRUPTED} for {@link FencedContext#yield()} or an
     * {@code onGranted} that threw, and otherwise the connection state that withdrew the token ({@code SUSPENDED},
     * under Curator's default policy only, or {@code LOST}, as the selector saw it first). A listener
     * that throws is logged and changes nothing. Add listeners before {@link #start()}: a listener added during a
     * grant is told from the next grant on, so that it always hears a loss after its grant.
     *
     * @param listener told of grants and losses
     * @throws IllegalArgumentException if {@code listener} is null
     */
    public void addListener(FencedLeaderListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        listeners.add(listener);
    }

    /**
     * Removes a listener added with {@link #addListener(FencedLeaderListener)}; does nothing if it was not added.
     *
     * @param listener the listener to remove
     */
    public void removeListener(FencedLeaderListener listener) {
        listeners.remove(listener);
    }

    /** Called by the application context: leader events go to its listeners unless a publisher was set. */
    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher applicationEventPublisher) {
        settings.setApplicationEventPublisher(applicationEventPublisher);
    }

    /**
     * Sets a progress deadline for the grants of the next {@link #start()}: while this initiator leads, the candidate's
     * work must call {@link FencedContext#progress()} at least once per {@code deadline}, or leadership is given up as
     * if lost ({@code onRevoked} is called, listeners hear {@code LossCause.STALLED}) and another instance leads.
     * Off by default. Bound from {@code leasehold.election.progress-deadline} by the auto-configuration.
     *
     * @param deadline more than 0 and at most one day
     * @throws IllegalArgumentException if {@code deadline} is null, zero, negative or longer than one day
     */
    public void setProgressDeadline(Duration deadline) {
        settings.setProgressDeadline(deadline);
    }

    /**
     * The progress deadline given to the next {@link #start()}'s selector.
     *
     * @return the deadline, empty when off
     */
    public Optional<Duration> progressDeadline() {
        return settings.progressDeadline();
    }

    /**
     * How long the leader's work has gone without calling {@link FencedContext#progress()}, while this initiator
     * leads (counted from the grant if it never did).
     *
     * @return the time since the last progress, empty while not leading
     */
    public Optional<Duration> sinceProgress() {
        FencedLeaderSelector selector = lastSelector;
        return selector == null ? Optional.empty() : selector.sinceProgress();
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
            ElectionRun next = new ElectionRun(
                    this, client, candidate, role, participantId, electionPath, settings::publisher, listeners);
            FencedLeaderSelector selector =
                    new FencedLeaderSelector(client, electionPath, participantId, next, closeWait);
            settings.progressDeadline().ifPresent(selector::setProgressDeadline);
            next.start(selector);
            lastSelector = selector;
            run = next;
        }
    }

    /**
     * Leaves the election: withdraws the token and waits up to the close wait for {@code onRevoked} (the leader's work
     * stopping) to return; the node is deleted after it returned. Does nothing if not running.
     */
    @Override
    public void stop() {
        ElectionRun stopping;
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
     * This participant's id in the election: the candidate's id, or the one given at construction.
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
        ElectionRun current = run;
        return current == null ? Optional.empty() : current.currentToken();
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
}
