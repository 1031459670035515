package dev.leasehold.micrometer;

import dev.leasehold.store.lease.LeaseElection;
import dev.leasehold.store.lease.LeaseListener;
import dev.leasehold.store.lease.LeaseLoss;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The meters of one participant of a {@link LeaseElection} (leader election on the database), the same meters as
 * {@link ElectionMeters} gives the ZooKeeper recipes, so that one dashboard and one set of alerts serve both:
 * <ul>
 *   <li>{@code leasehold.leader} gauge: 1 while this participant leads, else 0;</li>
 *   <li>{@code leasehold.leadership.grants} counter, {@code leasehold.leadership.losses} counter tagged {@code cause}
 *       (the {@link LeaseLoss}, lower case: {@code renew_failed}, {@code taken_over}, {@code closed},
 *       {@code stalled});</li>
 *   <li>{@code leasehold.leadership.held} timer: how long each leadership lasted, from grant to loss;</li>
 *   <li>{@code leasehold.leadership.wait} timer: from joining the election (binding, or the previous loss) to the
 *       grant.</li>
 * </ul>
 * Every meter is tagged {@code election} (the lease name) and {@code participant} (the holder id): the same tag keys
 * as {@link ElectionMeters}, since Prometheus refuses one meter name with two sets of tag keys. Times come from the
 * registry's clock.
 *
 * <p>The gauge says what this participant was told last: a holder whose renew deadline passed reads 0 as soon as the
 * election's event thread has told it, which is before a follower can lead (the lease outlives the deadline). Alert on
 * the sum over participants being 0 for longer than a lease duration plus a retry period, and on losses with cause
 * {@code renew_failed} or {@code stalled}.
 *
 * <p>Thread-safety: thread-safe; the election calls the listener methods from one thread at a time.
 */
public final class LeaseMeters implements LeaseListener {

    private final MeterRegistry registry;
    private final Clock clock;
    private final AtomicInteger leading = new AtomicInteger();
    private final AtomicLong joinedAt;
    private final AtomicLong grantedAt = new AtomicLong();
    private final Counter grants;
    private final Map<LeaseLoss, Counter> losses = new EnumMap<>(LeaseLoss.class);
    private final Timer held;
    private final Timer wait;
    private final List<Meter> meters = new ArrayList<>();

    /**
     * Registers this participant's meters, at 0, and takes now as the moment it joined the election.
     *
     * @param registry    where the meters go
     * @param election    the {@code election} tag, usually the lease name
     * @param participant the {@code participant} tag, usually the holder id
     * @throws IllegalArgumentException if an argument is null, or a tag is blank
     */
    public LeaseMeters(MeterRegistry registry, String election, String participant) {
        this.registry = Checks.notNull(registry, "registry");
        this.clock = registry.config().clock();
        // the same tag keys as ElectionMeters: Prometheus refuses one name with two sets of keys
        Tags tags = Tags.of(
                "election", Checks.tag(election, "election"), "participant", Checks.tag(participant, "participant"));
        this.joinedAt = new AtomicLong(clock.monotonicTime());
        meters.add(Gauge.builder("leasehold.leader", leading, AtomicInteger::get)
                .tags(tags)
                .description("1 while this participant leads the election, else 0")
                .register(registry));
        grants = Counter.builder("leasehold.leadership.grants")
                .tags(tags)
                .description("grants of leadership to this participant")
                .register(registry);
        meters.add(grants);
        for (LeaseLoss cause : LeaseLoss.values()) {
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
     * Registers the meters of {@code election} (tagged with its name and holder id) and adds them as its listener.
     * Call it before {@link LeaseElection#start()}, so that the wait is measured from the start.
     *
     * @param registry where the meters are registered
     * @param election the participant to meter
     * @return the meters, to {@link #remove()} them later
     * @throws IllegalArgumentException if an argument is null
     */
    public static LeaseMeters bind(MeterRegistry registry, LeaseElection election) {
        Checks.notNull(election, "election");
        LeaseMeters meters = new LeaseMeters(registry, election.name(), election.holder());
        election.addListener(meters);
        return meters;
    }

    @Override
    public void acquired(long token) {
        long now = clock.monotonicTime();
        wait.record(Math.max(0, now - joinedAt.get()), TimeUnit.NANOSECONDS);
        grantedAt.set(now);
        grants.increment();
        leading.set(1);
    }

    @Override
    public void lost(long token, LeaseLoss cause) {
        long now = clock.monotonicTime();
        leading.set(0);
        held.record(Math.max(0, now - grantedAt.get()), TimeUnit.NANOSECONDS);
        losses.get(cause).increment();
        joinedAt.set(now); // a lease election keeps trying after a loss
    }

    /**
     * What the {@code leasehold.leader} gauge shows.
     *
     * @return whether the last event this participant heard was a grant
     */
    public boolean leading() {
        return leading.get() == 1;
    }

    /** Removes this participant's meters from the registry (after the election was closed, say). Idempotent. */
    public void remove() {
        for (Meter meter : meters) {
            registry.remove(meter);
        }
    }
}
