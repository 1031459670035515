package dev.leasehold.spring.metrics;

import dev.leasehold.micrometer.LeaseMeters;
import dev.leasehold.spring.lease.LeaseLeaderInitiator;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Optional;

/**
 * The election meters of this application's {@link LeaseLeaderInitiator}s ({@code leasehold.election.backend=jdbc}):
 * one {@link LeaseMeters} per initiator, tagged {@code election} (the role, the lease's name) and {@code participant}
 * (the candidate's id), the same meters as {@link LeaseholdElectionMeters} gives the ZooKeeper initiators. Created
 * before the initiators start; closed with the context, which removes the meters from the registry.
 *
 * <p>Thread-safety: thread-safe; the map is filled in the constructor and only read afterwards.
 */
public final class LeaseholdLeaseMeters implements AutoCloseable {

    private final InitiatorMeters<LeaseLeaderInitiator, LeaseMeters> meters;

    /**
     * Registers the meters of each initiator and adds them as its listener.
     *
     * @param registry   where the meters are registered
     * @param initiators the initiators to meter; not started yet, so that they hear every grant
     * @throws IllegalArgumentException if an argument is null
     */
    public LeaseholdLeaseMeters(MeterRegistry registry, List<LeaseLeaderInitiator> initiators) {
        this.meters = new InitiatorMeters<>(
                registry,
                initiators,
                initiator -> {
                    LeaseMeters bound = new LeaseMeters(registry, initiator.role(), initiator.holder());
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
    public Optional<LeaseMeters> of(LeaseLeaderInitiator initiator) {
        return meters.of(initiator);
    }

    /** Removes the meters from the initiators and from the registry. Idempotent. */
    @Override
    public void close() {
        meters.close();
    }
}
