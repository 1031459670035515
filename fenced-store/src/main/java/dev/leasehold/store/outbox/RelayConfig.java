package dev.leasehold.store.outbox;

import dev.leasehold.store.internal.Args;
import java.time.Duration;

/**
 * How an {@link OutboxRelay} claims and retries. Validated when built; change it with the withers.
 *
 * <p>Immutable and thread-safe.
 *
 * @param lease          how long a claim keeps other relays away (database clock); longer than the slowest send
 *                       you expect, or the intent is sent again by another relay while the first send still runs.
 *                       Whole milliseconds, 1 ms to 7 days
 * @param maxAttempts    attempts before an intent goes dead, 1 to 1000
 * @param initialBackoff the wait before the second attempt, doubled for each further one; zero retries at once.
 *                       Whole milliseconds, at most {@code maxBackoff}
 * @param maxBackoff     the longest wait between attempts; whole milliseconds, at most 7 days
 */
public record RelayConfig(Duration lease, int maxAttempts, Duration initialBackoff, Duration maxBackoff) {

    /**
     * Checks the components.
     *
     * @param lease          how long a claim keeps other relays away
     * @param maxAttempts    attempts before an intent goes dead
     * @param initialBackoff the wait before the second attempt
     * @param maxBackoff     the longest wait between attempts
     * @throws IllegalArgumentException if a component is null or out of the range given above
     */
    public RelayConfig {
        Args.leaseMillis(lease);
        if (maxAttempts < 1 || maxAttempts > 1000) {
            throw new IllegalArgumentException("maxAttempts must be 1 to 1000, was " + maxAttempts);
        }
        backoffMillis(maxBackoff, "maxBackoff");
        if (backoffMillis(initialBackoff, "initialBackoff") > maxBackoff.toMillis()) {
            throw new IllegalArgumentException(
                    "initialBackoff must be at most maxBackoff (" + maxBackoff + "), was " + initialBackoff);
        }
    }

    /** @return a 30 s lease, 10 attempts, backoff from 1 s doubling up to 5 min */
    public static RelayConfig defaults() {
        return new RelayConfig(Duration.ofSeconds(30), 10, Duration.ofSeconds(1), Duration.ofMinutes(5));
    }

    /**
     * @param lease the new lease (see {@link #lease()})
     * @return a copy with that lease
     * @throws IllegalArgumentException if it is out of range
     */
    public RelayConfig withLease(Duration lease) {
        return new RelayConfig(lease, maxAttempts, initialBackoff, maxBackoff);
    }

    /**
     * @param maxAttempts the new number of attempts (see {@link #maxAttempts()})
     * @return a copy with that number
     * @throws IllegalArgumentException if it is out of range
     */
    public RelayConfig withMaxAttempts(int maxAttempts) {
        return new RelayConfig(lease, maxAttempts, initialBackoff, maxBackoff);
    }

    /**
     * Sets both ends of the backoff.
     *
     * @param initialBackoff the new first wait (see {@link #initialBackoff()})
     * @param maxBackoff     the new longest wait (see {@link #maxBackoff()})
     * @return a copy with that backoff
     * @throws IllegalArgumentException if either is out of range
     */
    public RelayConfig withBackoff(Duration initialBackoff, Duration maxBackoff) {
        return new RelayConfig(lease, maxAttempts, initialBackoff, maxBackoff);
    }

    /**
     * The wait after a failed attempt.
     *
     * @param attempt the attempt that failed, from 1
     * @return {@code initialBackoff * 2^(attempt-1)} in milliseconds, capped at {@code maxBackoff}
     */
    public long backoffMillisAfter(int attempt) {
        long initial = initialBackoff.toMillis();
        int doublings = Math.min(Math.max(attempt - 1, 0), 40);
        long backoff = initial > (Long.MAX_VALUE >> doublings) ? Long.MAX_VALUE : initial << doublings;
        return Math.min(backoff, maxBackoff.toMillis());
    }

    private static long backoffMillis(Duration backoff, String name) {
        Args.notNull(backoff, name);
        if (backoff.isNegative() || backoff.compareTo(Args.MAX_LEASE) > 0 || backoff.toNanos() % 1_000_000 != 0) {
            throw new IllegalArgumentException(
                    name + " must be 0 to " + Args.MAX_LEASE + " in whole milliseconds, was " + backoff);
        }
        return backoff.toMillis();
    }
}
