package dev.leasehold.store;

/**
 * Told what the store's calls decided, for metrics and logs: every fence write, every claim outcome, every slot
 * outcome. Given through {@link StoreConfig#withListener(StoreListener)}; every method is a no-op by default.
 *
 * <p>When: after the call's transaction has ended and its connection went back to the pool, on the thread that made
 * the call, before the call returns. The store holds no lock of its own then. A listener that throws is logged at
 * WARN and the call returns (or throws) exactly as it would have without it: a listener cannot break the store.
 *
 * <p>Keep the methods fast (increment a counter): they run on your writers' threads.
 *
 * <p>Thread-safety: implementations must be thread-safe; one store may call them from any number of threads at once.
 */
public interface StoreListener {

    /** A listener that does nothing: the default of {@link StoreConfig}. */
    StoreListener NONE = new StoreListener() {};

    /**
     * A write through {@link FenceGate} ({@code write}, {@code call}, {@code update} or {@code advance}) ended.
     *
     * @param resource the resource it was fenced on
     * @param token    the token it carried
     * @param outcome  accepted (committed), stale (refused by a higher mark) or failed (anything else)
     */
    default void fenceWrite(String resource, long token, FenceOutcome outcome) {}

    /**
     * A call of {@link dev.leasehold.store.claims.BatchClaims} decided {@code count} batches' fate the same way (a {@code claimUpTo} that
     * claims 7 batches is one call with {@code CLAIMED, 7}).
     *
     * @param outcome what was decided
     * @param count   how many batches it was decided for
     */
    default void claims(ClaimOutcome outcome, int count) {}

    /**
     * A call of {@link dev.leasehold.store.slots.SlotRuns} on {@code job} decided {@code count} slots' fate the same way.
     *
     * @param job     the job the slots belong to
     * @param outcome what was decided
     * @param count   how many slots it was decided for
     */
    default void slots(String job, SlotOutcome outcome, int count) {}
}
