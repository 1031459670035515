package dev.leasehold.spring.lease;

import dev.leasehold.recipes.FencingToken;
import dev.leasehold.spring.FencedContext;
import dev.leasehold.spring.LeaseContext;
import dev.leasehold.spring.internal.InitiatorSettings;
import dev.leasehold.spring.zookeeper.FencedLeaderInitiator;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.lease.LeaseElection;
import dev.leasehold.store.lease.LeaseHolder;
import dev.leasehold.store.lease.LeaseListener;
import dev.leasehold.store.lease.LeaseLoss;
import dev.leasehold.store.lease.LeaseTiming;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.SmartLifecycle;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.event.LeaderEventPublisher;

/**
 * Runs a Spring Integration {@link Candidate} in a {@link LeaseElection} on the application's database, without
 * ZooKeeper ({@code leasehold.election.backend=jdbc}): the lease is named after {@code candidate.getRole()}, the holder
 * is {@code candidate.getId()} unless one is given (the starter gives one to a candidate that names no id of its own:
 * see docs/spring-boot.md).
 *
 * <p>The candidate is called, and the events published, on the election's own event thread (never the thread that
 * renews the lease, never under a lock), one call at a time:
 * <ol>
 *   <li>grant: {@code candidate.onGranted(context)}, then an {@code OnGrantedEvent}; the context is a
 *       {@link FencedContext} (a {@link LeaseContext}) carrying the grant's token;</li>
 *   <li>loss (renew deadline passed, progress deadline passed, lease taken over, {@link LeaseContext#yield()},
 *       {@link #stop()}):
 *       {@code candidate.onRevoked(context)}, then an {@code OnRevokedEvent}; only after {@code onRevoked} returned is
 *       the lease released, so that another participant leads without waiting for it to expire.</li>
 * </ol>
 * The participant keeps taking part after a loss, until {@link #stop()}. An {@code onGranted} that throws gives the
 * grant up ({@code onRevoked} follows, the lease is released) and backs off before joining again, as the ZooKeeper
 * initiator does: 1 s, doubling with each failure in a row, at most 30 s; a grant whose {@code onGranted} returns
 * resets it.
 *
 * <p>IMPORTANT: {@code onGranted} should start the leader's work and return: while it runs, the election still
 * renews, but the loss of this grant is told only after it returned. {@code onRevoked} should stop that work and
 * return only once it stopped.
 *
 * <p>{@link #stop()} waits for {@code onRevoked} and the release, at most a lease duration (then the lease expires by
 * itself).
 *
 * <p>Thread-safety: thread-safe. Start and stop are meant for the application context's lifecycle thread.
 */
public final class LeaseLeaderInitiator implements SmartLifecycle, ApplicationEventPublisherAware {

    private static final Logger log = LoggerFactory.getLogger(LeaseLeaderInitiator.class);

    /** The first wait before joining again after an {@code onGranted} that threw; doubled per failure in a row. */
    static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
    /** The longest such wait. */
    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

    private final DataSource dataSource;
    private final Candidate candidate;
    private final LeaseTiming timing;
    private final StoreConfig config;
    private final String role;
    private final String holder;
    private final String leasePath;
    private final LeaseElection probe;
    private final List<LeaseListener> listeners = new CopyOnWriteArrayList<>();
    private final InitiatorSettings settings = new InitiatorSettings();
    private volatile LeaseElection election;
    private final Object lifecycle = new Object();
    /** Between start and stop, backing off included; guarded by {@code lifecycle}. */
    private volatile boolean running;
    /** {@code onGranted} calls that threw in a row; guarded by {@code lifecycle}. */
    private int failuresInARow;
    /** The rejoin a back-off waits for, or null; guarded by {@code lifecycle}. */
    private Object rejoin;

    /**
     * @param dataSource where the lease table is (schema version 6)
     * @param candidate  the candidate; its role names the lease, its id is the holder id (both: non-blank, at most 200
     *                   characters, no blanks at either end)
     * @param timing     the lease's timing
     * @param config     the store's table prefix (and dialect, if forced)
     * @throws IllegalArgumentException if an argument is missing or not allowed (the message says which)
     */
    public LeaseLeaderInitiator(DataSource dataSource, Candidate candidate, LeaseTiming timing, StoreConfig config) {
        this(dataSource, candidate, candidate == null ? null : candidate.getId(), timing, config);
    }

    /**
     * An initiator whose holder id is given, not the candidate's {@code getId()}: the starter gives each candidate
     * that names no id of its own this instance's id ({@code leasehold.election.participant-id}, or host, pid and a
     * random part).
     *
     * @param dataSource where the lease table is (schema version 6)
     * @param candidate  the candidate; its role names the lease (non-blank, at most 200 characters, no blanks at
     *                   either end)
     * @param holder     this participant's holder id, unique among the participants; same rules as the role
     * @param timing     the lease's timing
     * @param config     the store's table prefix (and dialect, if forced)
     * @throws IllegalArgumentException if an argument is missing or not allowed (the message says which)
     */
    public LeaseLeaderInitiator(
            DataSource dataSource, Candidate candidate, String holder, LeaseTiming timing, StoreConfig config) {
        if (candidate == null) {
            throw new IllegalArgumentException("candidate must not be null");
        }
        this.dataSource = dataSource;
        this.candidate = candidate;
        this.timing = timing;
        this.config = config;
        this.role = candidate.getRole();
        this.holder = holder;
        // checks every argument now, as the election would at start (nothing is written); kept to read the row
        this.probe = new LeaseElection(dataSource, role, holder, timing, new Listener(), config);
        this.leasePath = config.tablePrefix() + "leases/" + role;
    }

    /**
     * Publishes the leader events through this publisher instead of the application context's.
     *
     * @param publisher the publisher of {@code OnGrantedEvent} and {@code OnRevokedEvent}
     */
    public void setLeaderEventPublisher(LeaderEventPublisher publisher) {
        settings.setLeaderEventPublisher(publisher);
    }

    /** Called by the application context: leader events go to its listeners unless a publisher was set. */
    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher applicationEventPublisher) {
        settings.setApplicationEventPublisher(applicationEventPublisher);
    }

    /**
     * Adds a listener told of each grant and its end (the starter's meters, say), on the election's event thread,
     * before the candidate is called ({@code acquired} before {@code onGranted}, {@code lost} before
     * {@code onRevoked}); effective from the next grant on. A listener that throws is logged and changes nothing.
     *
     * @param listener told of grants and losses
     * @throws IllegalArgumentException if {@code listener} is null
     */
    public void addListener(LeaseListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        listeners.add(listener);
    }

    /**
     * Removes a listener added with {@link #addListener(LeaseListener)}, from the next grant on (it still hears the
     * loss of a grant it was told of); does nothing if it was not added.
     *
     * @param listener the listener to remove
     */
    public void removeListener(LeaseListener listener) {
        listeners.remove(listener);
    }

    /**
     * Sets a progress deadline for the elections of the next {@link #start()}: while this initiator leads, the
     * candidate's work must call {@link LeaseContext#progress()} at least once per {@code deadline}, or the grant is
     * given up although the lease could still be renewed ({@code onRevoked} is called, listeners hear {@code
     * LeaseLoss.STALLED}, the lease is released) and another instance leads. Off by default. Bound from {@code
     * leasehold.election.progress-deadline} by the auto-configuration, as for the ZooKeeper initiator.
     *
     * @param deadline more than 0 and at most one day
     * @throws IllegalArgumentException if {@code deadline} is null, zero, negative or longer than one day
     */
    public void setProgressDeadline(Duration deadline) {
        settings.setProgressDeadline(deadline);
    }

    /**
     * The progress deadline given to the next {@link #start()}'s election.
     *
     * @return the deadline, empty when off
     */
    public Optional<Duration> progressDeadline() {
        return settings.progressDeadline();
    }

    /**
     * How long the leader's work has gone without calling {@link LeaseContext#progress()}, while this initiator leads
     * (counted from the grant if it never did).
     *
     * @return the time since the last progress, empty while not leading
     */
    public Optional<Duration> sinceProgress() {
        LeaseElection current = election;
        return current == null ? Optional.empty() : current.sinceProgress();
    }

    /** Joins the election with a new {@link LeaseElection}. Does nothing if already running. */
    @Override
    public void start() {
        synchronized (lifecycle) {
            if (!running) {
                running = true;
                failuresInARow = 0;
                election = join();
                log.info("[{}] joined the lease election for role '{}'", holder, role);
            }
        }
    }

    private LeaseElection join() {
        // the listeners (the starter's meters) are told by Listener, before the candidate and its events
        LeaseElection next = new LeaseElection(dataSource, role, holder, timing, new Listener(), config);
        settings.progressDeadline().ifPresent(next::setProgressDeadline);
        next.start();
        return next;
    }

    /**
     * Leaves the election: {@code onRevoked} runs if this participant leads, then the lease is released; waits for
     * both, at most a lease duration. Does nothing if not running.
     */
    @Override
    public void stop() {
        LeaseElection stopping;
        synchronized (lifecycle) {
            running = false;
            rejoin = null;
            stopping = election;
            election = null;
        }
        if (stopping != null) {
            stopping.close();
        }
    }

    /**
     * Whether this initiator takes part in the election.
     *
     * @return {@code true} between {@link #start()} and {@link #stop()}
     */
    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * Started after, and stopped before, the beans the leader's work uses.
     *
     * @return {@value FencedLeaderInitiator#PHASE}
     */
    @Override
    public int getPhase() {
        return FencedLeaderInitiator.PHASE;
    }

    /**
     * The candidate's role.
     *
     * @return the role, which names the lease
     */
    public String role() {
        return role;
    }

    /**
     * This participant's holder id: the candidate's id, or the one given at construction.
     *
     * @return the holder id
     */
    public String holder() {
        return holder;
    }

    /**
     * Whether this participant leads. A belief, not a guarantee.
     *
     * @return {@code true} while this participant holds a grant within its renew deadline
     */
    public boolean isLeader() {
        return currentToken().isPresent();
    }

    /**
     * The token of the current grant.
     *
     * @return the token; empty unless this participant leads
     */
    public OptionalLong currentToken() {
        LeaseElection current = election;
        return current == null ? OptionalLong.empty() : current.currentToken();
    }

    /**
     * Who holds the lease, read from its row now (one query), whether or not this initiator is running.
     *
     * @return the holder; empty if nobody holds an unexpired lease by the database's clock
     * @throws dev.leasehold.store.StoreException if the database cannot be read
     */
    public Optional<LeaseHolder> currentLeader() {
        return probe.currentHolder();
    }

    /** Gives up the grant of {@code token}, if it is still the current one, and joins again. */
    private void yieldGrant(long token) {
        synchronized (lifecycle) {
            LeaseElection current = election;
            if (current == null || current.currentToken().orElse(0) != token) {
                return;
            }
            election = join(); // the new election waits for the old one's release like any follower
            current.close(); // from a listener: returns at once, the release follows onRevoked
        }
    }

    /**
     * After an {@code onGranted} that threw: gives the grant of {@code token} up, if it is still the current one, and
     * joins again after the back-off (1 s, doubling per failure in a row, at most 30 s), not at once: a candidate that
     * always throws would otherwise be granted in a tight loop.
     */
    private void backOff(long token, RuntimeException failure) {
        synchronized (lifecycle) {
            LeaseElection current = election;
            if (current == null || current.currentToken().orElse(0) != token) {
                log.error("[{}] token {}: onGranted threw", holder, token, failure);
                return;
            }
            failuresInARow++;
            long wait = Math.min(FIRST_BACKOFF.toMillis() << Math.min(failuresInARow - 1, 10), MAX_BACKOFF.toMillis());
            log.error(
                    "[{}] token {}: onGranted for role '{}' threw; giving the grant up, joining again in {} ms",
                    holder,
                    token,
                    role,
                    wait,
                    failure);
            Object mine = new Object();
            rejoin = mine;
            election = null;
            CompletableFuture.delayedExecutor(wait, TimeUnit.MILLISECONDS).execute(() -> rejoinAfterBackOff(mine));
            current.close(); // from a listener: returns at once, the release follows onRevoked
        }
    }

    private void rejoinAfterBackOff(Object expected) {
        synchronized (lifecycle) {
            if (running && rejoin == expected) {
                rejoin = null;
                election = join();
            }
        }
    }

    private void granted() {
        synchronized (lifecycle) {
            failuresInARow = 0;
        }
    }

    /** The candidate's side of one grant. */
    private final class Grant implements LeaseContext {
        private final long token;
        private final FencingToken fencingToken;
        private volatile boolean leading = true;

        Grant(long token) {
            this.token = token;
            this.fencingToken = new FencingToken(token, leasePath, holder);
        }

        @Override
        public FencingToken token() {
            return fencingToken;
        }

        @Override
        public boolean isLeader() {
            LeaseElection current = election;
            return leading && current != null && current.currentToken().orElse(0) == token;
        }

        @Override
        public void yield() {
            if (leading) {
                yieldGrant(token);
            }
        }

        @Override
        public void progress() {
            LeaseElection current = election;
            if (leading && current != null) {
                current.progress();
            }
        }

        @Override
        public String getRole() {
            return role;
        }

        @Override
        public String toString() {
            return "LeaseContext[" + holder + ", role=" + role + ", token " + token + "]";
        }
    }

    /** Turns one election's events into the candidate's calls and Spring Integration's events. */
    private final class Listener implements LeaseListener {
        /** The grant told to the candidate; the election's event thread only. */
        private Grant grant;
        /** The listeners told of that grant, who alone hear its loss; the election's event thread only. */
        private List<LeaseListener> told = List.of();

        @Override
        public void acquired(long token) {
            Grant g = new Grant(token);
            grant = g;
            told = List.copyOf(listeners);
            for (LeaseListener listener : told) {
                try {
                    listener.acquired(token);
                } catch (RuntimeException e) {
                    log.warn("[{}] token {}: a listener's acquired threw", holder, token, e);
                }
            }
            try {
                candidate.onGranted(g);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                g.yield();
                return;
            } catch (RuntimeException e) {
                backOff(token, e);
                return;
            }
            granted();
            LeaderEventPublisher events = settings.publisher();
            if (events != null) {
                events.publishOnGranted(LeaseLeaderInitiator.this, g, role);
            }
        }

        @Override
        public void lost(long token, LeaseLoss cause) {
            Grant g = grant;
            if (g == null || g.token != token) {
                return;
            }
            g.leading = false;
            grant = null;
            for (LeaseListener listener : told) {
                try {
                    listener.lost(token, cause);
                } catch (RuntimeException e) {
                    log.warn("[{}] token {}: a listener's lost threw", holder, token, e);
                }
            }
            told = List.of();
            log.info("[{}] token {}: leadership of role '{}' ended ({})", holder, token, role, cause);
            try {
                candidate.onRevoked(g);
            } finally {
                LeaderEventPublisher events = settings.publisher();
                if (events != null) {
                    events.publishOnRevoked(LeaseLeaderInitiator.this, g, role);
                }
            }
        }
    }

    @Override
    public String toString() {
        return "LeaseLeaderInitiator[" + holder + ", role=" + role + ", running=" + isRunning() + "]";
    }
}
