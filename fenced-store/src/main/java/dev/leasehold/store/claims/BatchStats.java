package dev.leasehold.store.claims;

import java.time.Duration;
import java.util.Optional;

/**
 * The queue at one instant, counted by {@link BatchClaims#stats()} in one statement (so the numbers agree with each
 * other). Immutable and thread-safe.
 *
 * @param pending          waiting for a claim
 * @param processing       claimed, lease still running
 * @param expired          claimed, lease ended (the next claim takes them, or fails them if out of attempts)
 * @param done             finished
 * @param failed           out of attempts
 * @param oldestPendingAge how long the oldest pending batch has waited since it was enqueued (database clock);
 *                         empty if nothing is pending
 */
public record BatchStats(
        long pending, long processing, long expired, long done, long failed, Optional<Duration> oldestPendingAge) {}
