package dev.leasehold.store.internal;

/**
 * Names one claim of a batch for a conditional finish: the batch and the fence its claim carried.
 *
 * @param batchId the batch's id
 * @param fence   the claim's fence
 */
public record BatchKey(String batchId, long fence) {}
