package dev.leasehold.store.outbox;

import dev.leasehold.store.internal.Args;

/**
 * What a leader intends to send to an outside system: recorded by {@link Outbox}, delivered by {@link OutboxRelay}.
 *
 * <p>Immutable and thread-safe.
 *
 * @param key         the idempotency key, derived from the business identity of the work
 * @param destination a name for the receiver (an API, a queue), 1 to 200 characters; the relay hands it to the
 *                    sender, and ordering is per destination
 * @param payload     what to send, as text (e.g. JSON); at most 1,000,000 characters
 * @param ordered     if true, the intent is delivered only after every older ordered intent of the same
 *                    destination was delivered or went dead (one in flight per destination)
 */
public record OutboxIntent(IdempotencyKey key, String destination, String payload, boolean ordered) {

    /** The longest payload accepted. */
    public static final int MAX_PAYLOAD = 1_000_000;

    /**
     * Checks the components.
     *
     * @param key         the idempotency key
     * @param destination where it goes
     * @param payload     what is sent
     * @param ordered     whether it is delivered in order within its destination
     * @throws IllegalArgumentException if the key is null, the destination blank or longer than 200 characters, or
     *                                  the payload null or longer than {@link #MAX_PAYLOAD}
     */
    public OutboxIntent {
        Args.notNull(key, "key");
        Args.name(destination, "destination");
        Args.notNull(payload, "payload");
        if (payload.length() > MAX_PAYLOAD) {
            throw new IllegalArgumentException(
                    "payload must be at most " + MAX_PAYLOAD + " characters, was " + payload.length());
        }
    }

    /**
     * An intent delivered in no particular order relative to others.
     *
     * @param key         the idempotency key the receiver is sent
     * @param destination where it goes, as the sender understands it
     * @param payload     what is sent
     * @return the intent
     */
    public static OutboxIntent of(IdempotencyKey key, String destination, String payload) {
        return new OutboxIntent(key, destination, payload, false);
    }

    /** @return this intent, delivered in order with the other ordered intents of its destination */
    public OutboxIntent inOrder() {
        return new OutboxIntent(key, destination, payload, true);
    }
}
