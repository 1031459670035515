package dev.leasehold.micrometer;

import dev.leasehold.store.claims.BatchClaims;
import dev.leasehold.store.claims.BatchStats;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;

/**
 * The batch queue's state as gauges, from {@link BatchClaims#stats()}:
 * <ul>
 *   <li>{@code leasehold.batches} tagged {@code status} ({@code pending}, {@code processing}, {@code expired},
 *       {@code done}, {@code failed}): how many batches are in each;</li>
 *   <li>{@code leasehold.batches.oldest.pending} (a time gauge, seconds): how long the oldest pending batch has
 *       waited, 0 when none is pending.</li>
 * </ul>
 * IMPORTANT: the gauges show the counts of the last {@link #refresh()}, never a query of their own: a scrape must not
 * read the whole table. Call {@code refresh()} on a schedule of your own (every scrape interval, say); until the first
 * one the gauges read NaN.
 *
 * <p>Thread-safety: thread-safe; {@code refresh()} may run on any thread while the gauges are read.
 */
public final class BatchMeters {

    private final BatchClaims claims;
    private final MeterRegistry registry;
    private final AtomicReference<BatchStats> last = new AtomicReference<>();
    private final List<Meter> meters;

    /**
     * Registers the gauges of {@code claims}' queue on {@code registry}.
     *
     * @param registry where the gauges are registered
     * @param claims   the queue whose counts they show
     * @throws IllegalArgumentException if an argument is null
     */
    public BatchMeters(MeterRegistry registry, BatchClaims claims) {
        this.registry = Checks.notNull(registry, "registry");
        this.claims = Checks.notNull(claims, "claims");
        meters = List.of(
                status("pending", BatchStats::pending),
                status("processing", BatchStats::processing),
                status("expired", BatchStats::expired),
                status("done", BatchStats::done),
                status("failed", BatchStats::failed),
                TimeGauge.builder(
                                "leasehold.batches.oldest.pending",
                                last,
                                TimeUnit.SECONDS,
                                ref -> read(
                                        ref,
                                        stats -> stats.oldestPendingAge()
                                                        .orElse(Duration.ZERO)
                                                        .toMillis()
                                                / 1000.0))
                        .description("how long the oldest pending batch has waited")
                        .register(registry));
    }

    /**
     * Reads the queue's counts now (one statement over the whole batch table) and shows them on the gauges.
     *
     * @return the counts read
     * @throws dev.leasehold.store.StoreException if the database failed; the gauges keep the previous counts
     */
    public BatchStats refresh() {
        BatchStats stats = claims.stats();
        last.set(stats);
        return stats;
    }

    /**
     * The counts the gauges show.
     *
     * @return the counts of the last {@link #refresh()}, if there was one
     */
    public Optional<BatchStats> lastRefresh() {
        return Optional.ofNullable(last.get());
    }

    /** Removes these gauges from the registry. Idempotent. */
    public void remove() {
        for (Meter meter : meters) {
            registry.remove(meter);
        }
    }

    private Gauge status(String status, ToDoubleFunction<BatchStats> count) {
        return Gauge.builder("leasehold.batches", last, ref -> read(ref, count))
                .tag("status", status)
                .description("batches by status, as of the last refresh")
                .register(registry);
    }

    private static double read(AtomicReference<BatchStats> ref, ToDoubleFunction<BatchStats> value) {
        BatchStats stats = ref.get();
        return stats == null ? Double.NaN : value.applyAsDouble(stats);
    }
}
