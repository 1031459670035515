package dev.leasehold.store;

/**
 * What a call of {@link dev.leasehold.store.slots.SlotRuns} decided, as told to {@link StoreListener#slots}. Thread-safety: an enum, immutable.
 */
public enum SlotOutcome {
    /** {@code tryClaim} won the slot. */
    WON,
    /** {@code tryClaim} lost: another runner has (or had) the slot. */
    LOST_RACE,
    /** {@code sweep} took over slots whose lease had expired. */
    TAKEN_OVER,
    /** {@code complete} recorded the result. */
    COMPLETED,
    /** {@code complete} was refused: the slot was swept to another runner, or is already done. */
    LATE_COMPLETE_REJECTED,
    /** {@code renew} was refused: the slot was swept to another runner, or is done. */
    RENEW_REJECTED,
    /** The call failed with an exception (the database failed): nothing decided. */
    ERROR
}
