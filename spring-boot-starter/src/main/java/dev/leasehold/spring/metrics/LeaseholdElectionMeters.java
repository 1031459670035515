package dev.leasehold.spring.metrics;

import dev.leasehold.micrometer.ElectionMeters;
import dev.leasehold.spring.zookeeper.FencedLeaderInitiator;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Optional;

/**
 * The election meters of this application's {@link FencedLeaderInitiator}s: one {@link ElectionMeters} per initiator,
 * tagged {@code election} (its election path) and {@code participant} (the candidate's id), added as the initiator's
 * listener. Created by the starter before the initiators start, so the {@code leasehold.leadership.wait} timer counts
 * from about the context's start; closed with the context, which removes the meters from the registry.
 *
 * <p>Thread-safety: thread-safe; the map is filled in the constructor and only read afterwards.
 */
public final class LeaseholdElectionMeters implements AutoCloseable {

    private final InitiatorMeters<FencedLeaderInitiator, ElectionMeters> meters;

    /**
     * Registers the meters of each initiator and adds them as its listener.
     *
     * @param registry   where the meters are registered
     * @param initiators the initiators to meter; not started yet, so that they hear every grant
     * @throws IllegalArgumentException if an argument is null
     */
    public LeaseholdElectionMeters(MeterRegistry registry, List<FencedLeaderInitiator> initiators) {
        this.meters = new InitiatorMeters<>(
                registry,
                initiators,
                initiator -> {
                    ElectionMeters bound =
                            new ElectionMeters(registry, initiator.electionPath(), initiator.participantId());
                    bound.progressAge(initiator::sinceProgress);
                    initiator.addListener(bound);
                    return bound;
                },
                (initiator, bound) -> {
                    initiator.removeListener(bound);
                    bound.remove();
                });
    }

    /**
     * The meters of one initiator.
     *
     * @param initiator an initiator of this application
     * @return its meters; empty if it was not metered
     */
    public Optional<ElectionMeters> of(FencedLeaderInitiator initiator) {
        return meters.of(initiator);
    }

    /** Removes the meters from the initiators and from the registry. Idempotent. */
    @Override
    public void close() {
        meters.close();
    }
}
