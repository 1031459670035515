package dev.leasehold.store.claims;

import dev.leasehold.store.StoreConfig;
import java.time.Instant;

/**
 * A claim on one batch, won by {@link BatchClaims#claimNext} or {@link BatchClaims#claimUpTo}. {@code fence} is
 * greater than any fence the batch had before: a later claim of the same batch (after this lease expired) makes this
 * one stale. Immutable and thread-safe.
 *
 * @param attempt    which claim of the batch this is, from 1; the batch is {@code failed} once attempt
 *                   {@link StoreConfig#maxAttempts()} fails or its lease ends
 * @param leaseUntil when the lease ends, by the database's clock (compare it with nothing on the client: clocks
 *                   differ; renew well before, or treat it as information)
 */
public record BatchClaim(String batchId, String owner, long fence, String payload, int attempt, Instant leaseUntil) {}
