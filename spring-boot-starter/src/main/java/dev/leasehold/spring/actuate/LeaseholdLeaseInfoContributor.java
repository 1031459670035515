package dev.leasehold.spring.actuate;

import dev.leasehold.spring.lease.LeaseLeaderInitiator;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;

/**
 * Adds {@code leasehold} to the {@code info} endpoint on the database lease backend
 * ({@code leasehold.election.backend=jdbc}): as on ZooKeeper, per role this instance's participant id, whether it
 * leads, its token, and who leads now ({@code leader}: participant id and token), with the lease's {@code holder} and
 * {@code lease_until} (the database's clock).
 *
 * <p>Thread-safety: thread-safe.
 */
public final class LeaseholdLeaseInfoContributor implements InfoContributor {

    private final List<LeaseLeaderInitiator> initiators;
    private final DataSource dataSource;

    /**
     * @param initiators the lease initiators to report, one per {@code Candidate}
     * @param dataSource the database the leases are on, checked when there is no initiator; or {@code null}
     */
    public LeaseholdLeaseInfoContributor(List<LeaseLeaderInitiator> initiators, DataSource dataSource) {
        this.initiators = List.copyOf(initiators);
        this.dataSource = dataSource;
    }

    @Override
    public void contribute(Info.Builder builder) {
        builder.withDetail("leasehold", LeaseStatus.read(initiators, dataSource).details());
    }
}
