package dev.leasehold.spring;

import dev.leasehold.spring.lease.LeaseLeaderInitiator;
import dev.leasehold.spring.zookeeper.FencedLeaderInitiator;
import dev.leasehold.store.lease.LeaseTiming;
import java.time.Duration;
import java.util.Locale;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Which election the starter's initiators use, and the lease's timing when it is the database's:
 * {@code leasehold.election.backend} ({@code zookeeper}, the default, or {@code jdbc}) and
 * {@code leasehold.election.lease.*}. Checked when bound: a bad value fails the context at start with a message that
 * names the property and the rule.
 *
 * <p>Thread-safety: immutable records.
 *
 * @param backend {@code zookeeper}: a {@link FencedLeaderInitiator} per {@code Candidate} (needs ZooKeeper);
 *                {@code jdbc}: a {@link LeaseLeaderInitiator} per {@code Candidate}, on the context's
 *                {@code DataSource} (no ZooKeeper)
 * @param lease   the lease's timing, for {@code jdbc}
 */
@ConfigurationProperties("leasehold.election")
public record LeaseholdLeaseProperties(@DefaultValue("zookeeper") String backend, @DefaultValue Lease lease) {

    /**
     * Checks the backend.
     *
     * @param backend {@code zookeeper} or {@code jdbc}
     * @param lease   the lease's timing
     */
    public LeaseholdLeaseProperties {
        String normalized = backend == null ? "" : backend.strip().toLowerCase(Locale.ROOT);
        if (!normalized.equals("zookeeper") && !normalized.equals("jdbc")) {
            throw new IllegalArgumentException(
                    "leasehold.election.backend must be 'zookeeper' or 'jdbc', was '" + backend + "'");
        }
        backend = normalized;
    }

    /**
     * The lease's timing, with client-go's rules ({@link LeaseTiming}).
     *
     * @param leaseDuration how long a take or renew holds the lease, by the database's clock; default 15 s
     * @param renewDeadline how long the holder leads without a good renew, by its own clock; default 10 s
     * @param retryPeriod   how often the holder renews and followers try; default 2 s
     */
    public record Lease(
            @DefaultValue("15s") Duration leaseDuration,
            @DefaultValue("10s") Duration renewDeadline,
            @DefaultValue("2s") Duration retryPeriod) {

        /**
         * Checks the rules.
         *
         * @param leaseDuration the lease duration
         * @param renewDeadline the renew deadline
         * @param retryPeriod   the retry period
         */
        public Lease {
            try {
                new LeaseTiming(leaseDuration, renewDeadline, retryPeriod);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("leasehold.election.lease: " + e.getMessage(), e);
            }
        }

        /**
         * The timing.
         *
         * @return these durations as a {@link LeaseTiming}
         */
        public LeaseTiming toTiming() {
            return new LeaseTiming(leaseDuration, renewDeadline, retryPeriod);
        }
    }
}
