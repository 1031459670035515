package dev.leasehold.store;

/**
 * How a write through {@link FenceGate} ended, as told to {@link StoreListener#fenceWrite}. Thread-safety: an enum,
 * immutable.
 */
public enum FenceOutcome {
    /** The token passed and the transaction committed. */
    ACCEPTED,
    /** The token was lower than the resource's mark: a {@link StaleTokenException}, nothing kept. */
    STALE,
    /** The database or the caller's work failed: nothing kept (or, after a lost commit, unknown). */
    FAILED
}
