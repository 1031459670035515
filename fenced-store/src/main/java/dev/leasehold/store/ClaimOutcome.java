package dev.leasehold.store;

/**
 * What a call of {@link dev.leasehold.store.claims.BatchClaims} decided, as told to {@link StoreListener#claims}. Thread-safety: an enum,
 * immutable.
 */
public enum ClaimOutcome {
    /** Batches were claimed ({@code claimNext}, {@code claimUpTo}). */
    CLAIMED,
    /** A claim found nothing claimable. */
    EMPTY,
    /** Batches were finished by their current claim ({@code finish}, {@code finishAll}). */
    FINISHED,
    /** An attempt was recorded as failed by its current claim ({@code fail} returned true). */
    ATTEMPT_FAILED,
    /**
     * A claim was no longer current when it tried to finish ({@code finish}, {@code finishAll}, {@code fail}):
     * another claimer has the batch, or it is over. The signal that a lease was too short or a worker paused.
     */
    LOST_ON_FINISH,
    /** A claim was no longer current when it tried to {@code renew}. */
    LOST_ON_RENEW,
    /** The call failed with an exception (the database failed): nothing decided. */
    ERROR
}
