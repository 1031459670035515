package dev.leasehold.store.lease;

/**
 * One grant of the lease as this holder sees it: its token, until when it may lead by its own monotonic clock
 * ({@link System#nanoTime()}), and whether a renew failed since the last good one. Immutable; swapped whole, so a
 * reader never sees a token with another grant's deadline.
 */
record Grant(long token, long deadlineNanos, boolean renewFailed) {

    /** Whether the deadline passed at {@code nanoTime}. */
    boolean expiredAt(long nanoTime) {
        return nanoTime - deadlineNanos >= 0;
    }

    /** Why this grant ended if its deadline passed. */
    LeaseLoss deadlineCause() {
        return renewFailed ? LeaseLoss.RENEW_FAILED : LeaseLoss.STALLED;
    }
}
