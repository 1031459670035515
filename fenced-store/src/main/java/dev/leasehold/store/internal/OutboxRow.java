package dev.leasehold.store.internal;

/**
 * An outbox row as a claim returns it; the outbox package builds its public {@code OutboxClaim} from it.
 *
 * @param key         the intent's idempotency key
 * @param destination where it goes
 * @param payload     what is sent
 * @param relay       the relay that holds the claim
 * @param fence       the claim's fence
 * @param attempt     which attempt this claim is, 1 for the first
 */
public record OutboxRow(String key, String destination, String payload, String relay, long fence, int attempt) {}
