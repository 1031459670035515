package dev.leasehold.store.lease;

/**
 * One grant of the lease as this holder sees it: its token, and until when it may lead by its own monotonic clock
 * ({@link System#nanoTime()}). Immutable; swapped whole, so a reader never sees a token with another grant's deadline.
 */
record Grant(long token, long deadlineNanos) {

    /** Whether the deadline passed at {@code nanoTime}. */
    boolean expiredAt(long nanoTime) {
        return nanoTime - deadlineNanos >= 0;
    }
}
