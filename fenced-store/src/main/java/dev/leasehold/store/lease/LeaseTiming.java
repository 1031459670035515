package dev.leasehold.store.lease;

import java.time.Duration;

/**
 * How a {@link LeaseElection} times its lease, with the rules client-go's leader election enforces (and
 * kube-controller-manager's defaults, {@link #defaults()}):
 * <ol>
 *   <li>every duration is positive and whole milliseconds; the lease at most 7 days;</li>
 *   <li>{@code leaseDuration > renewDeadline}: the holder gives up before its lease can expire on the database's
 *       clock; the difference is the margin for clock rates and for telling the listener;</li>
 *   <li>{@code renewDeadline > 1.2 x retryPeriod}: a holder gets at least one renew attempt (with client-go's jitter)
 *       before it gives up.</li>
 * </ol>
 *
 * <p>Immutable and thread-safe.
 *
 * @param leaseDuration how long a take or a renew holds the lease, by the database's clock: a follower takes over at
 *                      most this long after the holder's last renew (plus one retry period)
 * @param renewDeadline how long the holder keeps leading without a successful renew, by its own monotonic clock,
 *                      counted from the START of its last successful renew (or take); then it is told
 *                      {@link LeaseLoss#RENEW_FAILED} (or {@link LeaseLoss#STALLED}) and stops
 * @param retryPeriod   how often the holder renews, and how often a follower tries to take the lease (one short
 *                      statement each time)
 */
public record LeaseTiming(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {

    /** client-go's jitter factor, which the rule {@code renewDeadline > 1.2 x retryPeriod} comes from. */
    public static final double JITTER_FACTOR = 1.2;

    private static final Duration MAX_LEASE = Duration.ofDays(7);

    /**
     * Checks the rules above.
     *
     * @param leaseDuration how long a take or renew holds the lease (database clock)
     * @param renewDeadline how long the holder leads without a successful renew (its own monotonic clock)
     * @param retryPeriod   the period of renews and of followers' tries
     * @throws IllegalArgumentException naming the rule broken and the values given
     */
    public LeaseTiming {
        positiveMillis(leaseDuration, "leaseDuration");
        positiveMillis(renewDeadline, "renewDeadline");
        positiveMillis(retryPeriod, "retryPeriod");
        if (leaseDuration.compareTo(MAX_LEASE) > 0) {
            throw new IllegalArgumentException("leaseDuration must be at most " + MAX_LEASE
                    + " (a longer lease is surely a unit mistake), was " + leaseDuration);
        }
        if (leaseDuration.compareTo(renewDeadline) <= 0) {
            throw new IllegalArgumentException("leaseDuration must be greater than renewDeadline (client-go's rule: the"
                    + " holder must give up before its lease can expire on the database), was leaseDuration "
                    + leaseDuration.toMillis() + " ms, renewDeadline " + renewDeadline.toMillis() + " ms");
        }
        // renewDeadline > 1.2 x retryPeriod, in exact integer arithmetic: 5 x renewDeadline > 6 x retryPeriod
        if (5 * renewDeadline.toMillis() <= 6 * retryPeriod.toMillis()) {
            throw new IllegalArgumentException("renewDeadline must be greater than " + JITTER_FACTOR
                    + " x retryPeriod (client-go's rule: the holder needs a renew attempt before it gives up), was"
                    + " renewDeadline " + renewDeadline.toMillis() + " ms, retryPeriod " + retryPeriod.toMillis()
                    + " ms");
        }
    }

    /**
     * kube-controller-manager's timing: a lease of 15 s, a renew deadline of 10 s, a retry period of 2 s. A follower
     * takes over at most about 17 s after a holder died; a graceful close hands over within about 2 s.
     *
     * @return 15 s / 10 s / 2 s
     */
    public static LeaseTiming defaults() {
        return new LeaseTiming(Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2));
    }

    /**
     * The same timing in milliseconds.
     *
     * @param leaseDuration the lease, in milliseconds
     * @param renewDeadline the renew deadline, in milliseconds
     * @param retryPeriod   the retry period, in milliseconds
     * @return the timing
     * @throws IllegalArgumentException as the constructor
     */
    public static LeaseTiming ofMillis(long leaseDuration, long renewDeadline, long retryPeriod) {
        return new LeaseTiming(
                Duration.ofMillis(leaseDuration), Duration.ofMillis(renewDeadline), Duration.ofMillis(retryPeriod));
    }

    private static void positiveMillis(Duration value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        if (value.isNegative() || value.isZero() || value.toNanos() % 1_000_000 != 0) {
            throw new IllegalArgumentException(name + " must be positive and whole milliseconds, was " + value);
        }
    }
}
