package dev.leasehold.store.internal;

import java.time.Instant;

/**
 * A batch row as a claim returns it; the claims package builds its public {@code BatchClaim} from it (internal code
 * never builds a feature's public records).
 *
 * @param batchId    the batch's id
 * @param owner      who holds the claim
 * @param fence      the claim's fence (raised by every claim)
 * @param payload    the batch's payload
 * @param attempt    which attempt this claim is, 1 for the first
 * @param leaseUntil when the lease ends, on the database clock
 */
public record BatchRow(String batchId, String owner, long fence, String payload, int attempt, Instant leaseUntil) {}
