package dev.leasehold.store.outbox;

/**
 * A relay's claim on one intent, won by {@link OutboxRelay#claimNext}. {@code fence} is greater than any fence the
 * intent had before: once the lease expired and another relay claimed the intent, this claim can record nothing.
 *
 * <p>Immutable and thread-safe.
 *
 * @param key         the idempotency key to send with the payload
 * @param destination the receiver's name, as recorded
 * @param payload     what to send
 * @param relay       the relay that holds the claim
 * @param fence       the claim's fence (1 for the first claim of an intent)
 * @param attempt     which attempt this is, from 1
 */
public record OutboxClaim(
        IdempotencyKey key, String destination, String payload, String relay, long fence, int attempt) {}
