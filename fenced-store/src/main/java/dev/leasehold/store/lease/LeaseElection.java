package dev.leasehold.store.lease;

import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.StoreException;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election on the database the work already uses: one row per election name in the lease table
 * ({@code leasehold_leases}, schema version 6: {@code name, holder, lease_until, generation}), and the row's
 * generation as the fencing token. No ZooKeeper.
 *
 * <p>The algorithm, every step one conditional statement judged by its update count:
 * <ol>
 *   <li><b>take</b> (followers, every retry period): {@code generation + 1}, this holder, {@code lease_until = now +
 *       leaseDuration}, only if the lease ended ({@code lease_until <= now}). "now" is the database's clock: an
 *       instance's clock never decides expiry. 1 row: this holder leads with the new generation as its token.</li>
 *   <li><b>renew</b> (the holder, every retry period): {@code lease_until = now + leaseDuration} only if holder,
 *       generation and an unexpired lease still match. 0 rows: the grant is over ({@link LeaseLoss#TAKEN_OVER}).</li>
 *   <li><b>deadline</b>: the holder leads only until {@code renewDeadline} after the START of its last successful
 *       renew (or take), on its own monotonic clock ({@link System#nanoTime()}). Since {@code renewDeadline <
 *       leaseDuration} and the database counts the lease from a later moment (when the statement ran), the holder
 *       stops before its lease can expire on the database: {@link #hasLeadership()} turns false at that instant, and
 *       the listeners hear {@link LeaseLoss#RENEW_FAILED} (renews failed or got no answer in time), before any
 *       follower can take over.</li>
 *   <li><b>progress deadline</b> (optional, {@link #setProgressDeadline}): a holder whose work made no {@link
 *       #progress()} call within it stops renewing and hears {@link LeaseLoss#STALLED}, so that a follower leads.</li>
 *   <li><b>release</b> (after {@link #close()}, and after a loss by either deadline): {@code lease_until = now} under the same
 *       condition as a renew, only after the listeners' {@code lost} returned: the leader's work has stopped, and a
 *       follower takes over within about one retry period instead of a lease duration.</li>
 * </ol>
 * Tokens grow by one with every take, across changes of holder and across a release and re-take by the same holder;
 * they are plain {@code long}s for {@code FenceGate} on this or another database. A time-based lease alone is not
 * mutual exclusion: a holder paused between a check and a write can still write late. Fence every write with the
 * token, at the resource.
 *
 * <p>Two elections with the same holder id do not share a grant, in one process or two: the row stores the holder id
 * plus a random suffix made once per election instance ({@code #} and 16 hex digits; {@link #currentHolder()}, logs
 * and {@link #holder()} show the id as configured). A take needs an ended lease, and a renew or a release this
 * instance's exact grant (stored holder and generation), so the second waits like any follower, and even a generation
 * granted twice (a failover that lost a take, see below) has one holder that can renew it. A holder id longer than 183
 * characters is cut to 183 in the row before the suffix. Never delete a lease row: its generation is the history of the
 * tokens; a new row would start again at 1, below the marks the fence has seen.
 *
 * <p>Threads: one loop thread (takes, renews, releases) and one event thread (listener calls in order, the deadline
 * check) per election, both daemon threads that end 2 s after the election has nothing scheduled. Listeners are never
 * called under a lock of the election, nor on the loop thread.
 *
 * <p>IMPORTANT: a grant is only as durable as the database. A take acknowledged by a primary whose standbys replicate
 * asynchronously can be lost when a standby is promoted: the promoted database still says the old generation, a
 * follower takes the lease again with the SAME generation, and two holders lead with one token (the fence cannot tell
 * them apart), while the first holder's writes with its lost generation pass a fence that lost its mark too. At its
 * first statement an election reads {@link dev.leasehold.store.FailoverDurability} (one query, on a connection of its
 * own) and logs a WARN once per server if it is {@linkplain dev.leasehold.store.FailoverDurability#atRisk() at risk},
 * as {@code FenceGate} does; call {@link dev.leasehold.store.FencedSchema#durability} at start to act on it.
 *
 * <p>Thread-safety: thread-safe. {@link #start()} once; {@link #close()} any number of times, from any thread.
 */
public final class LeaseElection implements AutoCloseable {

    /** The longest progress deadline accepted: a stall longer than this is not a stall but a design. */
    public static final Duration MAX_PROGRESS_DEADLINE = Duration.ofDays(1);

    private static final Logger log = LoggerFactory.getLogger(LeaseElection.class);

    private enum State {
        LATENT,
        STARTED,
        CLOSED
    }

    private final String name;
    private final String holder;
    private final LeaseTiming timing;
    private final String who;
    private final LeaseRows rows;
    private final LeaseEvents events;
    private final Leadership leadership;
    private final LeaseLoop loop;
    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private volatile Duration progressDeadline;

    /**
     * An election with {@link StoreConfig#defaults()} (tables {@code leasehold_*}, the dialect detected).
     *
     * @param dataSource where the lease table is; any pool (auto-commit on or off)
     * @param name       the election's name: one lease row; non-blank, at most 200 characters, no blanks at either end,
     *                   no control characters
     * @param holder     this participant's id (see {@link #defaultHolder()}); same rules as {@code name}; two
     *                   elections with one id are still two participants
     * @param timing     the lease's timing, see {@link LeaseTiming}
     * @param listener   told of grants and losses, on the election's event thread
     * @throws IllegalArgumentException if an argument is null or breaks the rules above; nothing is written then
     */
    public LeaseElection(
            DataSource dataSource, String name, String holder, LeaseTiming timing, LeaseListener listener) {
        this(dataSource, name, holder, timing, listener, StoreConfig.defaults());
    }

    /**
     * An election with the table prefix and dialect of {@code config}.
     *
     * @param dataSource where the lease table is; any pool (auto-commit on or off)
     * @param name       the election's name: one lease row; non-blank, at most 200 characters, no blanks at either end,
     *                   no control characters
     * @param holder     this participant's id (see {@link #defaultHolder()}); same rules as {@code name}; two
     *                   elections with one id are still two participants
     * @param timing     the lease's timing, see {@link LeaseTiming}
     * @param listener   told of grants and losses, on the election's event thread
     * @param config     the table prefix and, if forced, the dialect (its other settings do not apply to leases)
     * @throws IllegalArgumentException if an argument is null or breaks the rules above; nothing is written then
     */
    public LeaseElection(
            DataSource dataSource,
            String name,
            String holder,
            LeaseTiming timing,
            LeaseListener listener,
            StoreConfig config) {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource must not be null");
        }
        this.name = Names.check(name, "name");
        this.holder = Names.check(holder, "holder");
        if (timing == null) {
            throw new IllegalArgumentException("timing must not be null; LeaseTiming.defaults() is 15 s / 10 s / 2 s");
        }
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        if (config == null) {
            throw new IllegalArgumentException(
                    "config must not be null; StoreConfig.defaults() for the default tables");
        }
        this.timing = timing;
        this.who = name + "/" + holder;
        this.rows = new LeaseRows(dataSource, config, name, holder, timing);
        this.events = new LeaseEvents(who, "leasehold-lease-events[" + who + "]");
        this.events.add(listener);
        this.leadership = new Leadership(events, timing, this::afterLoss);
        this.loop = new LeaseLoop(who, rows, leadership, timing, "leasehold-lease[" + who + "]");
    }

    /**
     * A holder id for this process: {@code <host>-<pid>-<8 random hex digits>}, different for every call, so two
     * elections in one process never share an id.
     *
     * @return a new holder id
     */
    public static String defaultHolder() {
        return Names.defaultHolder();
    }

    /**
     * Joins the election: the loop thread tries to take the lease at once, then every retry period. Returns at once;
     * database failures are logged and retried, never thrown here.
     *
     * @throws IllegalStateException if already started or closed
     */
    public void start() {
        if (!state.compareAndSet(State.LATENT, State.STARTED)) {
            throw new IllegalStateException("[" + who + "] cannot start an election that is " + state.get());
        }
        loop.start();
    }

    /**
     * Sets a progress deadline: while this holder leads, its work must call {@link #progress()} at least once per
     * {@code deadline}; if it does not, the holder gives the lease up although it could still renew it. It stops
     * renewing, the listeners hear {@code lost(token, }{@link LeaseLoss#STALLED}{@code )}, and after that call
     * returned the lease is released (only if the row still carries this grant's generation). The holder then sits
     * out two retry periods before it tries to take the lease again, so that a follower takes over first, with a
     * higher token. Off by default: a holder whose renewals succeed keeps the lease however long its work hangs.
     *
     * <p>Choose a deadline well above the longest gap between two {@code progress()} calls of healthy work (a slow
     * item, a GC pause): a deadline that is too short makes leadership flap. The clock starts at each grant.
     *
     * @param deadline more than 0 and at most one day
     * @throws IllegalArgumentException if {@code deadline} is null, zero, negative or longer than one day
     * @throws IllegalStateException    if the election was already started
     */
    public void setProgressDeadline(Duration deadline) {
        if (deadline == null
                || deadline.isNegative()
                || deadline.isZero()
                || deadline.compareTo(MAX_PROGRESS_DEADLINE) > 0) {
            throw new IllegalArgumentException(
                    "progressDeadline must be more than 0 and at most " + MAX_PROGRESS_DEADLINE
                            + " (leave it unset to never give the lease up for want of progress), was " + deadline);
        }
        if (state.get() != State.LATENT) {
            throw new IllegalStateException("[" + who
                    + "] setProgressDeadline() must be called before start(); this election is " + state.get());
        }
        progressDeadline = deadline;
        leadership.progressDeadline(deadline);
    }

    /**
     * The progress deadline, if one was set.
     *
     * @return the deadline, empty when off
     */
    public Optional<Duration> progressDeadline() {
        return Optional.ofNullable(progressDeadline);
    }

    /**
     * Tells the election that the leader's work advanced. Cheap (one volatile write: no lock, no I/O, no statement):
     * call it from the work loop as often as you like, e.g. once per item. Called while this holder does not lead, it
     * is ignored (each grant starts its own clock). Without a progress deadline it only feeds {@link
     * #sinceProgress()}.
     */
    public void progress() {
        leadership.progress();
    }

    /**
     * How long the leader's work has gone without calling {@link #progress()} (counted from the grant if it never
     * did), while this holder leads.
     *
     * @return the time since the last progress, empty while not leading
     */
    public Optional<Duration> sinceProgress() {
        return leadership.sinceProgress();
    }

    /**
     * Leaves the election. If this holder leads, the listeners hear {@code lost(token, CLOSED)}; after that call has
     * returned (the leader's work stopped), the lease is released, so that a follower leads within about one retry
     * period. Waits for all of that, and for every listener call queued before it (a {@code lost(STALLED)} still
     * being told, say), at most a lease duration (then the lease ends on its own), except when called from a listener,
     * where it returns at once and the release follows that listener's calls. Idempotent.
     */
    @Override
    public void close() {
        State previous = state.getAndSet(State.CLOSED);
        if (previous == State.CLOSED) {
            return;
        }
        loop.stop();
        long token = leadership.close();
        if (token == 0) {
            // After the listener calls queued now: a loss they tell (STALLED, say) queues its release when they
            // returned, before the loop shuts down. Then after the statement in flight: a take it won is released
            // there.
            events.afterQueued(() -> loop.release(0, this::shutdown));
        }
        if (events.isEventThread() || loop.isLoopThread()) {
            return;
        }
        try {
            closed.get(timing.leaseDuration().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            log.warn(
                    "[{}] close: the listeners' lost({}) or the release did not finish within {} ms; the lease ends"
                            + " on its own",
                    who,
                    token,
                    timing.leaseDuration().toMillis());
            shutdown();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            shutdown();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause()); // never completed exceptionally
        }
    }

    /** After the listeners heard a loss: release, unless someone else holds the lease now. */
    private void afterLoss(long token, LeaseLoss cause) {
        if (cause == LeaseLoss.CLOSED) {
            loop.release(token, this::shutdown);
        } else if (cause == LeaseLoss.STALLED) {
            loop.sitOut(); // to the back of the queue: a follower takes the released lease first
            loop.release(token, () -> {});
        } else if (cause != LeaseLoss.TAKEN_OVER) {
            loop.release(token, () -> {});
        }
    }

    /** Ends both threads; {@link #close()} returns once the listener calls queued before this one have run. */
    private void shutdown() {
        loop.shutdown();
        events.shutdown(() -> closed.complete(null));
    }

    /**
     * Whether this holder leads now: it holds a grant and its renew deadline has not passed (on its monotonic clock).
     * The answer can be out of date by the time it is used: fence writes with {@link #currentToken()}.
     *
     * @return whether this holder leads
     */
    public boolean hasLeadership() {
        return leadership.current() != null;
    }

    /**
     * The token of this holder's grant, while it leads.
     *
     * @return the generation of the grant, or empty if this holder does not lead now
     */
    public OptionalLong currentToken() {
        Grant g = leadership.current();
        return g == null ? OptionalLong.empty() : OptionalLong.of(g.token());
    }

    /**
     * How long this holder may still lead unless a renew succeeds: the time to its renew deadline, on its monotonic
     * clock. Check it before a side effect the resource cannot fence, with a margin for the side effect's own
     * duration: {@code if (election.remaining().compareTo(expectedDuration.plus(margin)) > 0) ...}.
     *
     * @return the time left, or {@link Duration#ZERO} if this holder does not lead
     */
    public Duration remaining() {
        Grant g = leadership.current();
        if (g == null) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.max(0, g.deadlineNanos() - System.nanoTime()));
    }

    /**
     * Who holds the lease, read from its row now (one query). Works before {@link #start()} and after
     * {@link #close()}.
     *
     * @return the holder of the unexpired lease by the database's clock, or empty if nobody holds it
     * @throws StoreException if the database cannot be read (a missing table says to install schema version 6)
     */
    public Optional<LeaseHolder> currentHolder() {
        return rows.read();
    }

    /**
     * Adds a listener, told from the next grant on (a listener added while this holder leads hears nothing of the
     * current grant, neither its acquired nor its lost).
     *
     * @param listener the listener
     * @throws IllegalArgumentException if it is null
     */
    public void addListener(LeaseListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        events.add(listener);
    }

    /**
     * Removes a listener; it still hears the loss of a grant it was told of.
     *
     * @param listener the listener
     */
    public void removeListener(LeaseListener listener) {
        events.remove(listener);
    }

    /** @return the election's name (its lease row) */
    public String name() {
        return name;
    }

    /** @return this participant's holder id */
    public String holder() {
        return holder;
    }

    /** @return the lease's timing */
    public LeaseTiming timing() {
        return timing;
    }

    @Override
    public String toString() {
        return "LeaseElection[" + who + ", " + state.get() + ", token " + currentToken() + "]";
    }
}
