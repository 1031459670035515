package dev.leasehold.micrometer;

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
 * The meters that {@link ElectionMeters} (ZooKeeper recipes) and {@link LeaseMeters} (database leases) share: the
 * {@code leasehold.leader} gauge, optionally the {@code leasehold.leader.token} gauge, the grants counter, the losses
 * counter tagged {@code cause} (the loss cause's enum name, lower case), and the held and wait timers, all tagged
 * {@code election} and {@code participant}. Times come from the registry's clock.
 *
 * <p>Thread-safety: thread-safe; {@link #acquired} and {@link #lost} are called from one thread at a time.
 *
 * @param <C> the loss cause enum of the election
 */
final class LeadershipMeters<C extends Enum<C>> {

    private final MeterRegistry registry;
    private final Clock clock;
    private final Tags tags;
    private final AtomicInteger leading = new AtomicInteger();
    private final AtomicLong joinedAt;
    private final AtomicLong grantedAt = new AtomicLong();
    private final AtomicLong token = new AtomicLong();
    private final Counter grants;
    private final Map<C, Counter> losses;
    private final Timer held;
    private final Timer wait;
    private final List<Meter> meters = new CopyOnWriteArrayList<>();

    /**
     * Registers the meters, at 0, and takes now as the moment the participant joined the election.
     *
     * @param registry    where the meters go
     * @param election    the {@code election} tag
     * @param participant the {@code participant} tag
     * @param causes      the loss causes, one {@code leasehold.leadership.losses} counter each
     * @param tokenGauge  whether to register the {@code leasehold.leader.token} gauge
     * @throws IllegalArgumentException if an argument is null, or a tag is blank
     */
    LeadershipMeters(MeterRegistry registry, String election, String participant, Class<C> causes, boolean tokenGauge) {
        this.registry = Checks.notNull(registry, "registry");
        this.clock = registry.config().clock();
        // one set of tag keys for both elections: Prometheus refuses one name with two sets of keys
        this.tags = Tags.of(
                "election", Checks.tag(election, "election"), "participant", Checks.tag(participant, "participant"));
        this.joinedAt = new AtomicLong(clock.monotonicTime());
        this.losses = new EnumMap<>(causes);
        meters.add(Gauge.builder("leasehold.leader", leading, AtomicInteger::get)
                .tags(tags)
                .description("1 while this participant leads the election, else 0")
                .register(registry));
        if (tokenGauge) {
            meters.add(Gauge.builder("leasehold.leader.token", token, AtomicLong::get)
                    .tags(tags)
                    .description("the fencing token of the current grant while this participant leads, else 0")
                    .register(registry));
        }
        grants = Counter.builder("leasehold.leadership.grants")
                .tags(tags)
                .description("grants of leadership to this participant")
                .register(registry);
        meters.add(grants);
        for (C cause : causes.getEnumConstants()) {
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
     * Registers the {@code leasehold.leadership.progress.age} time gauge (seconds), read from {@code sinceProgress}
     * (empty while not leading, shown as 0), to be removed by {@link #remove()} with the others.
     *
     * @param sinceProgress how long the leader's work has gone without progress, empty while not leading
     * @throws IllegalArgumentException if {@code sinceProgress} is null
     */
    void progressAge(Supplier<Optional<Duration>> sinceProgress) {
        Checks.notNull(sinceProgress, "sinceProgress");
        meters.add(TimeGauge.builder("leasehold.leadership.progress.age", sinceProgress, TimeUnit.SECONDS, s -> s.get()
                        .map(d -> d.toNanos() / 1e9)
                        .orElse(0.0))
                .tags(tags)
                .description("time since the leader's work last called progress(), while this participant leads")
                .strongReference(true) // the supplier lives only here: a weak reference would read NaN after a GC
                .register(registry));
    }

    /** Takes now as the moment the participant (re)joined the election. */
    void joined() {
        joinedAt.set(clock.monotonicTime());
    }

    /**
     * Records a grant: the wait since joining, the grant count, the token, and the gauge at 1.
     *
     * @param token the fencing token of the grant
     */
    void acquired(long token) {
        long now = clock.monotonicTime();
        wait.record(Math.max(0, now - joinedAt.get()), TimeUnit.NANOSECONDS);
        grantedAt.set(now);
        grants.increment();
        this.token.set(token);
        leading.set(1);
    }

    /**
     * Records a loss: the gauges at 0, how long the leadership was held, the loss by cause, and now as the moment the
     * participant joined again (both elections queue again at once after a loss).
     *
     * @param cause why the leadership ended
     */
    void lost(C cause) {
        long now = clock.monotonicTime();
        leading.set(0);
        token.set(0);
        held.record(Math.max(0, now - grantedAt.get()), TimeUnit.NANOSECONDS);
        losses.get(cause).increment();
        joinedAt.set(now);
    }

    /** @return whether the last event the participant heard was a grant */
    boolean leading() {
        return leading.get() == 1;
    }

    /** Removes the meters from the registry. Idempotent. */
    void remove() {
        for (Meter meter : meters) {
            registry.remove(meter);
        }
    }
}
