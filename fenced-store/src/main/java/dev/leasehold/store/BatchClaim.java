package dev.leasehold.store;

/**
 * A claim on one batch, won by {@link BatchClaims#claimNext}. {@code fence} is greater than any fence the batch had
 * before: a later claim of the same batch (after this lease expired) makes this one stale.
 */
public record BatchClaim(String batchId, String owner, long fence, String payload) {}
