package dev.leasehold.store.slots;

import java.time.Instant;

/**
 * The right to run {@code job} for {@code slot}, won by {@link SlotRuns#tryClaim} (fence 1) or taken over by
 * {@link SlotRuns#sweep} (a higher fence, which makes the earlier runner's claim stale). Immutable and thread-safe.
 */
public record SlotClaim(String job, Instant slot, String runner, long fence) {}
