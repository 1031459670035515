package dev.leasehold.micrometer;

import dev.leasehold.store.outbox.Outbox;
import dev.leasehold.store.outbox.OutboxStats;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;

/**
 * The outbox's state as gauges, from {@link Outbox#stats()}: {@code leasehold.outbox.intents} tagged {@code status}
 * ({@code pending}, {@code sending}, {@code delivered}, {@code dead}): how many intents are in each. A {@code dead}
 * intent was given up after the relay's maximum number of attempts: its side effect never happened.
 *
 * <p>IMPORTANT: as {@link BatchMeters}, the gauges show the counts of the last {@link #refresh()}, never a query of
 * their own; call {@code refresh()} on a schedule of your own. Until the first one the gauges read NaN.
 *
 * <p>Thread-safety: thread-safe; {@code refresh()} may run on any thread while the gauges are read.
 */
public final class OutboxMeters {

    private final Outbox outbox;
    private final MeterRegistry registry;
    private final AtomicReference<OutboxStats> last = new AtomicReference<>();
    private final List<Meter> meters;

    /**
     * Registers the gauges of {@code outbox} on {@code registry}.
     *
     * @param registry where the gauges are registered
     * @param outbox   the outbox whose counts they show
     * @throws IllegalArgumentException if an argument is null
     */
    public OutboxMeters(MeterRegistry registry, Outbox outbox) {
        this.registry = Checks.notNull(registry, "registry");
        this.outbox = Checks.notNull(outbox, "outbox");
        meters = List.of(
                status("pending", OutboxStats::pending),
                status("sending", OutboxStats::sending),
                status("delivered", OutboxStats::delivered),
                status("dead", OutboxStats::dead));
    }

    /**
     * Reads the outbox's counts now (one statement) and shows them on the gauges.
     *
     * @return the counts read
     * @throws dev.leasehold.store.StoreException if the database failed; the gauges keep the previous counts
     */
    public OutboxStats refresh() {
        OutboxStats stats = outbox.stats();
        last.set(stats);
        return stats;
    }

    /**
     * The counts the gauges show.
     *
     * @return the counts of the last {@link #refresh()}, if there was one
     */
    public Optional<OutboxStats> lastRefresh() {
        return Optional.ofNullable(last.get());
    }

    /** Removes these gauges from the registry. Idempotent. */
    public void remove() {
        for (Meter meter : meters) {
            registry.remove(meter);
        }
    }

    private Gauge status(String status, ToDoubleFunction<OutboxStats> count) {
        return Gauge.builder("leasehold.outbox.intents", last, ref -> {
                    OutboxStats stats = ref.get();
                    return stats == null ? Double.NaN : count.applyAsDouble(stats);
                })
                .tag("status", status)
                .description("outbox intents by status, as of the last refresh")
                .register(registry);
    }
}
