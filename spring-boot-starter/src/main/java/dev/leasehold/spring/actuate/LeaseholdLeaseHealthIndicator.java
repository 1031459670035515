package dev.leasehold.spring.actuate;

import dev.leasehold.spring.lease.LeaseLeaderInitiator;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code leasehold} health on the database lease backend ({@code leasehold.election.backend=jdbc}): UP while the
 * database answers, DOWN (with what it said) when it does not. The details give {@code backend: jdbc} and per role
 * this instance's participant id, whether it leads ({@code leading}), and who holds the lease now: {@code holder},
 * {@code token} and {@code lease_until} (an instant of the database's clock), read from the lease's row.
 *
 * <p>Following is healthy: an instance that does not lead is UP. One query per role (one connection check when there
 * is no role).
 *
 * <p>Thread-safety: thread-safe.
 */
public final class LeaseholdLeaseHealthIndicator implements HealthIndicator {

    private final List<LeaseLeaderInitiator> initiators;
    private final DataSource dataSource;

    /**
     * @param initiators the lease initiators to report, one per {@code Candidate}
     * @param dataSource the database the leases are on, checked when there is no initiator; or {@code null}
     */
    public LeaseholdLeaseHealthIndicator(List<LeaseLeaderInitiator> initiators, DataSource dataSource) {
        this.initiators = List.copyOf(initiators);
        this.dataSource = dataSource;
    }

    @Override
    public Health health() {
        LeaseStatus status = LeaseStatus.read(initiators, dataSource);
        return (status.answered() ? Health.up() : Health.down())
                .withDetails(status.details())
                .build();
    }
}
