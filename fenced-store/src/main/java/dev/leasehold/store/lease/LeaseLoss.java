package dev.leasehold.store.lease;

/**
 * Why a grant of a {@link LeaseElection} ended, as told to {@link LeaseListener#lost(long, LeaseLoss)}. Whatever the
 * cause, the answer is the same: stop all work done under the token at once.
 *
 * <p>Thread-safety: an enum, immutable.
 */
public enum LeaseLoss {
    /**
     * The renew deadline passed without a successful renew: the renews failed with an error (the database refused,
     * could not be reached, or timed out) or got no answer in time (a renew hanging on the network, this process
     * paused by a GC or {@code SIGSTOP}, a starved thread). Told on the holder's own monotonic clock, before the lease
     * can expire on the database's (after a pause: as soon as this process runs again).
     */
    RENEW_FAILED,
    /**
     * A renew found that the database no longer holds this grant: another holder took the lease, or it expired by
     * the database's clock before the renew arrived (a clock that ran slow, a row changed by hand).
     */
    TAKEN_OVER,
    /** The election was closed ({@link LeaseElection#close()}); the lease is released after this call returns. */
    CLOSED,
    /**
     * The leader's work made no {@link LeaseElection#progress()} call within the election's progress deadline ({@link
     * LeaseElection#setProgressDeadline}): the holder gave the lease up although it could still renew it, so that a
     * follower leads. Told only when a progress deadline is set.
     */
    STALLED
}
