package dev.leasehold.micrometer;

import dev.leasehold.store.ClaimOutcome;
import dev.leasehold.store.FenceOutcome;
import dev.leasehold.store.SlotOutcome;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.StoreListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;

/**
 * The fenced store's events as counters. Give it to the store through its configuration:
 * {@code StoreConfig.defaults().withListener(new StoreMeters(registry))}, or {@link #on(StoreConfig)}.
 * <ul>
 *   <li>{@code leasehold.fence.writes} tagged {@code resource} and {@code outcome} ({@code accepted}, {@code stale},
 *       {@code failed}): every write through a {@code FenceGate}, {@code advance} included. A rising {@code stale}
 *       count is a deposed leader still trying to write;</li>
 *   <li>{@code leasehold.claims} tagged {@code outcome} ({@code claimed}, {@code empty}, {@code finished},
 *       {@code attempt_failed}, {@code lost_on_finish}, {@code lost_on_renew}, {@code error}), counting batches
 *       (a {@code claimUpTo} of 7 adds 7 to {@code claimed}; an empty claim adds 1 to {@code empty});</li>
 *   <li>{@code leasehold.slots} tagged {@code job} and {@code outcome} ({@code won}, {@code lost_race},
 *       {@code taken_over}, {@code completed}, {@code late_complete_rejected}, {@code renew_rejected},
 *       {@code error}).</li>
 * </ul>
 * A counter appears at its first event. The {@code resource} and {@code job} tags take the first
 * {@value #DEFAULT_NAME_LIMIT} distinct names your code uses (or the limit given to
 * {@link #StoreMeters(MeterRegistry, int)}); every later name is counted under {@code other}, with one WARN, so a
 * resource per customer cannot grow the registry without end.
 *
 * <p>Thread-safety: thread-safe, as {@link StoreListener} requires.
 */
public final class StoreMeters implements StoreListener {

    /** How many distinct resource names (and, apart, job names) are tagged as they are by default. */
    public static final int DEFAULT_NAME_LIMIT = 100;

    private final MeterRegistry registry;
    private final BoundedTag resources;
    private final BoundedTag jobs;

    /**
     * Meters on {@code registry}, tagging at most {@value #DEFAULT_NAME_LIMIT} resource and job names each.
     *
     * @param registry where the meters are registered
     * @throws IllegalArgumentException if {@code registry} is null
     */
    public StoreMeters(MeterRegistry registry) {
        this(registry, DEFAULT_NAME_LIMIT);
    }

    /**
     * Meters on {@code registry}.
     *
     * @param registry  where the meters are registered
     * @param nameLimit how many distinct resource names, and apart job names, are tagged as they are; later ones are
     *     tagged {@code other}
     * @throws IllegalArgumentException if {@code registry} is null or {@code nameLimit} is below 1
     */
    public StoreMeters(MeterRegistry registry, int nameLimit) {
        this.registry = Checks.notNull(registry, "registry");
        this.resources = new BoundedTag("resource", nameLimit);
        this.jobs = new BoundedTag("job", nameLimit);
    }

    /**
     * {@code config} with these meters as its listener.
     *
     * @param config the store's configuration
     * @return a copy of it that tells these meters
     * @throws IllegalArgumentException if {@code config} is null
     */
    public StoreConfig on(StoreConfig config) {
        return Checks.notNull(config, "config").withListener(this);
    }

    @Override
    public void fenceWrite(String resource, long token, FenceOutcome outcome) {
        Counter.builder("leasehold.fence.writes")
                .tag("resource", resources.valueOf(resource))
                .tag("outcome", lower(outcome))
                .description("writes through a fence gate, by resource and outcome")
                .register(registry)
                .increment();
    }

    @Override
    public void claims(ClaimOutcome outcome, int count) {
        Counter.builder("leasehold.claims")
                .tag("outcome", lower(outcome))
                .description("batches by what a claim call decided")
                .register(registry)
                .increment(count);
    }

    @Override
    public void slots(String job, SlotOutcome outcome, int count) {
        Counter.builder("leasehold.slots")
                .tag("job", jobs.valueOf(job))
                .tag("outcome", lower(outcome))
                .description("time slots by what a slot call decided")
                .register(registry)
                .increment(count);
    }

    private static String lower(Enum<?> outcome) {
        return outcome.name().toLowerCase(Locale.ROOT);
    }
}
