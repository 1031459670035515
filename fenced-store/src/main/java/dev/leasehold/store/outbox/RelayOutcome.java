package dev.leasehold.store.outbox;

/** What became of one claimed intent. */
public enum RelayOutcome {
    /** The sender succeeded and the delivery is recorded. */
    DELIVERED,
    /** The sender failed; the intent is pending again, due after the backoff. */
    RETRY_SCHEDULED,
    /** The sender failed on the last allowed attempt; the intent is dead, with the last error. */
    DEAD,
    /**
     * The claim was lost before the outcome could be recorded (its lease expired and another relay claimed the
     * intent): nothing was recorded. If the sender had succeeded, the receiver may see the intent again from the
     * other relay, with the same key.
     */
    CLAIM_LOST
}
