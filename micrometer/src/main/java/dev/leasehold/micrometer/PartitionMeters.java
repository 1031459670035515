package dev.leasehold.micrometer;

import dev.leasehold.recipes.FencedPartitionListener;
import dev.leasehold.recipes.FencedPartitions;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.recipes.LossCause;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The meters of one member of a {@link FencedPartitions} group, fed by the recipe's listener events:
 * <ul>
 *   <li>{@code leasehold.partitions.held} gauge: how many partitions this member holds (as it was told: acquired
 *       minus lost);</li>
 *   <li>{@code leasehold.partitions.target} gauge: how many the group's current target gives this member (it differs
 *       from {@code held} while partitions move);</li>
 *   <li>{@code leasehold.partitions.count} gauge: the group's partition count;</li>
 *   <li>{@code leasehold.partitions.acquisitions} counter, {@code leasehold.partitions.losses} counter tagged
 *       {@code cause} (the {@link LossCause}, lower case: {@code rebalanced}, {@code closed}, {@code lost},
 *       {@code suspended}, {@code node_gone}, ...);</li>
 *   <li>{@code leasehold.partitions.rebalances} counter: how many targets this member was told of (every join or
 *       leave in the group, and the first target it read).</li>
 * </ul>
 * Every meter is tagged {@code election} (the group's path) and {@code participant} (the member id), as the election
 * meters are.
 *
 * <p>The gauges say what this member was told last, not what ZooKeeper holds: a member whose session is lost reads its
 * old count until the recipe has told it. Sum {@code held} over the group's members and compare it with {@code count}
 * to see partitions that nobody holds; a member whose {@code held} stays below its {@code target} waits for a
 * previous owner whose {@code lost()} does not return.
 *
 * <p>Thread-safety: thread-safe; the recipe calls the listener methods from one thread at a time.
 */
public final class PartitionMeters implements FencedPartitionListener {

    private final MeterRegistry registry;
    private final AtomicInteger held = new AtomicInteger();
    private final AtomicInteger target = new AtomicInteger();
    private final Counter acquisitions;
    private final Counter rebalances;
    private final Map<LossCause, Counter> losses = new EnumMap<>(LossCause.class);
    private final List<Meter> meters = new CopyOnWriteArrayList<>();

    /**
     * Registers this member's meters, at 0.
     *
     * @param registry       where the meters go
     * @param election       the {@code election} tag, usually the group's path
     * @param participant    the {@code participant} tag, usually the member id
     * @param partitionCount the group's partition count, for the {@code leasehold.partitions.count} gauge
     * @throws IllegalArgumentException if an argument is null, a tag is blank or the count is below 1
     */
    public PartitionMeters(MeterRegistry registry, String election, String participant, int partitionCount) {
        this.registry = Checks.notNull(registry, "registry");
        if (partitionCount < 1) {
            throw new IllegalArgumentException("partitionCount must be at least 1, was " + partitionCount);
        }
        Tags tags = Tags.of(
                "election", Checks.tag(election, "election"), "participant", Checks.tag(participant, "participant"));
        meters.add(Gauge.builder("leasehold.partitions.held", held, AtomicInteger::get)
                .tags(tags)
                .description("partitions this member holds")
                .register(registry));
        meters.add(Gauge.builder("leasehold.partitions.target", target, AtomicInteger::get)
                .tags(tags)
                .description("partitions the group's current target gives this member")
                .register(registry));
        meters.add(Gauge.builder("leasehold.partitions.count", () -> partitionCount)
                .tags(tags)
                .description("the group's partition count")
                .strongReference(true)
                .register(registry));
        acquisitions = Counter.builder("leasehold.partitions.acquisitions")
                .tags(tags)
                .description("partitions this member acquired")
                .register(registry);
        rebalances = Counter.builder("leasehold.partitions.rebalances")
                .tags(tags)
                .description("targets this member was told of: joins and leaves in the group")
                .register(registry);
        meters.add(acquisitions);
        meters.add(rebalances);
        for (LossCause cause : LossCause.values()) {
            Counter counter = Counter.builder("leasehold.partitions.losses")
                    .tags(tags)
                    .tag("cause", cause.name().toLowerCase(Locale.ROOT))
                    .description("partitions this member lost, by cause")
                    .register(registry);
            losses.put(cause, counter);
            meters.add(counter);
        }
    }

    /**
     * Registers the meters of {@code partitions} (tagged with its path and member id) and adds them as its listener,
     * told on the recipe's own thread after the listener given to its constructor. Call it before {@link
     * FencedPartitions#start()}.
     *
     * @param registry   where the meters are registered
     * @param partitions the member to meter
     * @return the meters, to {@link #remove()} them later
     * @throws IllegalArgumentException if an argument is null
     */
    public static PartitionMeters bind(MeterRegistry registry, FencedPartitions partitions) {
        Checks.notNull(partitions, "partitions");
        PartitionMeters meters =
                new PartitionMeters(registry, partitions.path(), partitions.memberId(), partitions.partitionCount());
        partitions.addListener(meters);
        return meters;
    }

    @Override
    public void acquired(int partition, FencingToken token) {
        held.incrementAndGet();
        acquisitions.increment();
    }

    @Override
    public void lost(int partition, FencingToken token, LossCause cause) {
        held.decrementAndGet();
        losses.get(cause).increment();
    }

    @Override
    public void rebalanced(int members, SortedSet<Integer> target) {
        this.target.set(target.size());
        rebalances.increment();
    }

    /**
     * What the {@code leasehold.partitions.held} gauge shows.
     *
     * @return how many partitions this member was told it holds
     */
    public int held() {
        return held.get();
    }

    /** Removes this member's meters from the registry (after the recipe was closed, say). Idempotent. */
    public void remove() {
        for (Meter meter : meters) {
            registry.remove(meter);
        }
    }
}
