package dev.leasehold.micrometer;

import dev.leasehold.recipes.FencedLeaderLatch;
import dev.leasehold.recipes.FencedLeaderListener;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.recipes.LossCause;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The meters of one participant of one election, fed by the latch's listener events:
 * <ul>
 *   <li>{@code leasehold.leader} gauge: 1 while this participant leads, else 0 (the shape of Kubernetes'
 *       {@code leader_election_master_status});</li>
 *   <li>{@code leasehold.leadership.grants} counter, {@code leasehold.leadership.losses} counter tagged
 *       {@code cause} (the {@link LossCause}, lower case);</li>
 *   <li>{@code leasehold.leadership.held} timer: how long each leadership lasted, from grant to loss;</li>
 *   <li>{@code leasehold.leadership.wait} timer: from joining the election (binding, or the previous loss, after
 *       which the latch queues again) to the grant;</li>
 *   <li>{@code leasehold.leader.token} gauge: the fencing token of the current grant while this participant leads,
 *       else 0 (exact up to 2^53, which a ZooKeeper czxid reaches only after 2^21 ZooKeeper leader epochs);</li>
 *   <li>{@code leasehold.leadership.progress.age} time gauge (seconds), registered by {@link #bind}: how long the
 *       leader's work has gone without calling {@link FencedLeaderLatch#progress()} while this participant leads,
 *       else 0. With a progress deadline set, a loss with cause {@code stalled} follows when it passes the
 *       deadline.</li>
 * </ul>
 * Every meter is tagged {@code election} (the latch path) and {@code participant} (the participant id). Times are
 * taken from the registry's clock.
 *
 * <p>The times are as the listener hears them: a grant is heard a moment after Curator decided it, on the recipe's
 * own thread. The gauge says what this participant was told last, not what ZooKeeper holds at this instant: it can
 * read 1 for a moment after the session was lost. Alert on the sum over participants being 0 (no leader) for longer
 * than a grant normally takes, and on it being above 1 for longer than a session timeout.
 *
 * <p>Thread-safety: thread-safe; the listener methods may be called from any thread (the recipe calls them from one at
 * a time).
 */
public final class ElectionMeters implements FencedLeaderListener {

    private final MeterRegistry registry;
    private final Clock clock;
    private final Tags tags;
    private final AtomicInteger leading = new AtomicInteger();
    private final AtomicLong joinedAt;
    private final AtomicLong grantedAt = new AtomicLong();
    private final AtomicLong token = new AtomicLong();
    private final Counter grants;
    private final Map<LossCause, Counter> losses = new EnumMap<>(LossCause.class);
    private final Timer held;
    private final Timer wait;
    private final List<Meter> meters = new CopyOnWriteArrayList<>();

    /**
     * Registers this participant's meters, at 0, and takes now as the moment it joined the election.
     *
     * @param registry    where the meters go
     * @param election    the {@code election} tag, usually the latch path
     * @param participant the {@code participant} tag, usually the participant id
     * @throws IllegalArgumentException if an argument is null, or a tag is blank
     */
    public ElectionMeters(MeterRegistry registry, String election, String participant) {
        this.registry = Checks.notNull(registry, "registry");
        this.clock = registry.config().clock();
        this.tags = Tags.of(
                "election", Checks.tag(election, "election"), "participant", Checks.tag(participant, "participant"));
        this.joinedAt = new AtomicLong(clock.monotonicTime());
        meters.add(Gauge.builder("leasehold.leader", leading, AtomicInteger::get)
                .tags(tags)
                .description("1 while this participant leads the election, else 0")
                .register(registry));
        meters.add(Gauge.builder("leasehold.leader.token", token, AtomicLong::get)
                .tags(tags)
                .description("the fencing token of the current grant while this participant leads, else 0")
                .register(registry));
        grants = Counter.builder("leasehold.leadership.grants")
                .tags(tags)
                .description("grants of leadership to this participant")
                .register(registry);
        meters.add(grants);
        for (LossCause cause : LossCause.values()) {
            Counter counter = Counter.builder("leasehold.leadership.losses")
                    .tags(tags)
                    .tag("cause", cause.name().toLowerCase(Locale.ROOT))
                    .description("ends of this participant's leadership, by cause")
                    .register(registry);
            losses.put(cause, counter);
            meters.add(counter);
        }
        held = Timer.builder("leasehold.leadership.held")
                .tags(tags)
                .description("how long each leadership of this participant lasted")
                .register(registry);
        wait = Timer.builder("leasehold.leadership.wait")
                .tags(tags)
                .description("from joining the election (or the last loss) to the grant")
                .register(registry);
        meters.add(held);
        meters.add(wait);
    }

    /**
     * Registers the meters of {@code latch} (tagged with its path and participant id) and adds them as its listener,
     * told on the recipe's own thread. Call it before {@link FencedLeaderLatch#start()}, so that the wait is measured
     * from the start.
     *
     * @param registry where the meters are registered
     * @param latch    the participant to meter
     * @return the meters, to {@link #remove()} them later
     * @throws IllegalArgumentException if an argument is null
     */
    public static ElectionMeters bind(MeterRegistry registry, FencedLeaderLatch latch) {
        Checks.notNull(latch, "latch");
        ElectionMeters meters = new ElectionMeters(registry, latch.latchPath(), latch.participantId());
        meters.progressAge(() -> latch.sinceProgress());
        latch.addListener(meters);
        return meters;
    }

    /**
     * Registers the {@code leasehold.leadership.progress.age} time gauge, read from {@code sinceProgress} (the
     * recipe's {@code sinceProgress()}; empty while not leading, shown as 0). {@link #bind} does it for a latch; call
     * it for a {@code FencedLeaderSelector} with {@code selector::sinceProgress}. At most once per instance.
     *
     * @param sinceProgress how long the leader's work has gone without progress, empty while not leading
     * @throws IllegalArgumentException if {@code sinceProgress} is null
     */
    public void progressAge(Supplier<Optional<Duration>> sinceProgress) {
        Checks.notNull(sinceProgress, "sinceProgress");
        meters.add(TimeGauge.builder("leasehold.leadership.progress.age", sinceProgress, TimeUnit.SECONDS, s -> s.get()
                        .map(d -> d.toNanos() / 1e9)
                        .orElse(0.0))
                .tags(tags)
                .description("time since the leader's work last called progress(), while this participant leads")
                .strongReference(true) // the supplier lives only here: a weak reference would read NaN after a GC
                .register(registry));
    }

    /**
     * Takes now as the moment this participant (re)joined the election; for a recipe that does not queue again by
     * itself after a loss ({@code FencedLeaderSelector} without {@code autoRequeue}), call it when it does.
     */
    public void joined() {
        joinedAt.set(clock.monotonicTime());
    }

    @Override
    public void leadershipAcquired(FencingToken token) {
        long now = clock.monotonicTime();
        wait.record(Math.max(0, now - joinedAt.get()), TimeUnit.NANOSECONDS);
        grantedAt.set(now);
        grants.increment();
        this.token.set(token.value());
        leading.set(1);
    }

    @Override
    public void leadershipLost(FencingToken token, LossCause cause) {
        long now = clock.monotonicTime();
        leading.set(0);
        this.token.set(0);
        held.record(Math.max(0, now - grantedAt.get()), TimeUnit.NANOSECONDS);
        losses.get(cause).increment();
        joinedAt.set(now); // a latch queues again at once after a loss
    }

    /**
     * What the {@code leasehold.leader} gauge shows.
     *
     * @return whether the last event this participant heard was a grant
     */
    public boolean leading() {
        return leading.get() == 1;
    }

    /** Removes this participant's meters from the registry (after the latch was closed, say). Idempotent. */
    public void remove() {
        for (Meter meter : meters) {
            registry.remove(meter);
        }
    }
}
