package dev.leasehold.store.outbox;

/** What {@link Outbox#record} did with an intent. */
public enum RecordOutcome {
    /** The intent is new and now recorded (committed with the fence check). */
    RECORDED,
    /**
     * An intent with the same key, destination and payload was recorded before (by this leader or an earlier one):
     * nothing was written, and it will not be sent again because of this call.
     */
    ALREADY_RECORDED
}
