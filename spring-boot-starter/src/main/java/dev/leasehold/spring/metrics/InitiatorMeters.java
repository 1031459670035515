package dev.leasehold.spring.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * What {@link LeaseholdElectionMeters} and {@link LeaseholdLeaseMeters} share: one meters object per initiator, bound
 * in the constructor, looked up by initiator, and unbound on close.
 *
 * <p>Thread-safety: thread-safe; the map is filled in the constructor and only read afterwards.
 *
 * @param <I> the initiator type
 * @param <M> the meters type
 */
final class InitiatorMeters<I, M> {

    private final Map<I, M> meters = new IdentityHashMap<>();
    private final BiConsumer<I, M> unbind;

    /**
     * Binds meters to each initiator.
     *
     * @param registry   where the meters are registered; only checked here, {@code bind} uses it
     * @param initiators the initiators to meter
     * @param bind       registers one initiator's meters and adds them as its listener
     * @param unbind     removes the meters from the initiator and from the registry
     * @throws IllegalArgumentException if {@code registry} or {@code initiators} is null
     */
    InitiatorMeters(MeterRegistry registry, List<I> initiators, Function<I, M> bind, BiConsumer<I, M> unbind) {
        if (registry == null || initiators == null) {
            throw new IllegalArgumentException("registry and initiators must not be null");
        }
        this.unbind = unbind;
        for (I initiator : initiators) {
            meters.put(initiator, bind.apply(initiator));
        }
    }

    Optional<M> of(I initiator) {
        return Optional.ofNullable(meters.get(initiator));
    }

    void close() {
        meters.forEach(unbind);
    }
}
