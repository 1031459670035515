package dev.leasehold.store.claims;

import java.time.Instant;

/**
 * A batch as stored: {@code status} is {@code pending}, {@code processing}, {@code done} or {@code failed};
 * {@code attempts} counts its claims so far; {@code error} is the last failure's text, or null. Immutable and
 * thread-safe.
 */
public record BatchState(
        String batchId,
        String status,
        String owner,
        long fence,
        Instant leaseUntil,
        String result,
        int attempts,
        String error) {}
