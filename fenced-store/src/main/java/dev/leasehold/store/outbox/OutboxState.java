package dev.leasehold.store.outbox;

import java.time.Instant;

/**
 * One intent as stored. Immutable and thread-safe.
 *
 * @param status        {@code pending} (waiting for its first or next attempt), {@code sending} (claimed by a
 *                      relay), {@code delivered} or {@code dead} (gave up after the maximum number of attempts)
 * @param resource      the fenced resource whose token recorded it
 * @param token         that token
 * @param attempts      attempts begun so far
 * @param relay         the relay that holds or held the last claim, or null
 * @param fence         the last claim's fence (0 before the first claim)
 * @param nextAttemptAt when a pending intent becomes due (database clock)
 * @param lastError     the last failure the sender reported, or null
 * @param deliveredAt   when the delivery was recorded (database clock), or null
 */
public record OutboxState(
        IdempotencyKey key,
        String destination,
        String payload,
        String status,
        String resource,
        long token,
        int attempts,
        String relay,
        long fence,
        Instant nextAttemptAt,
        String lastError,
        Instant deliveredAt) {}
