package dev.leasehold.store.lease;

/**
 * Why a grant of a {@link LeaseElection} ended, as told to {@link LeaseListener#lost(long, LeaseLoss)}. Whatever the
 * cause, the answer is the same: stop all work done under the token at once.
 *
 * <p>Thread-safety: an enum, immutable.
 */
public enum LeaseLoss {
    /**
     * The renew deadline passed and at least one renew since the last good one failed with an error (the database
     * refused, could not be reached, or timed out). Told on the holder's own monotonic clock, before the lease can
     * expire on the database's.
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
     * The renew deadline passed without any renew failing: no answer came in time (a renew hanging on the network,
     * this process paused by a GC or {@code SIGSTOP}, a starved thread). Told as soon as this process runs again.
     */
    STALLED
}
