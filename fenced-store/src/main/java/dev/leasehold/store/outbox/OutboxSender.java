package dev.leasehold.store.outbox;

/**
 * Sends one intent to its destination: the user's half of the outbox, called by {@link OutboxRelay}.
 *
 * <p>Send {@link OutboxClaim#key()} with the request (an {@code Idempotency-Key} header, a message id, a unique
 * column at the receiver): the relay delivers <em>at least once</em>, so the same intent may be sent again, by this
 * relay or another one, whenever an earlier attempt's outcome was not recorded (a timeout, a crash, a pause longer
 * than the claim's lease). Only a receiver that honours the key makes that harmless.
 *
 * <p>Return normally when the receiver accepted the intent (or answered that it already had it). Throw to report a
 * failure: the relay records the exception's text and retries later, up to its maximum number of attempts. The
 * relay calls this with no lock held and no transaction open, on the thread that called
 * {@link OutboxRelay#relayNext}; implementations used by several relay threads must be thread-safe.
 */
@FunctionalInterface
public interface OutboxSender {

    /**
     * Delivers {@code claim.payload()} to {@code claim.destination()} with {@code claim.key()}.
     *
     * @param claim the intent to deliver
     * @throws Exception any failure; like {@link java.util.concurrent.Callable#call()}, since a sender may fail in
     *                   any way (I/O, an HTTP status, an interrupt) and the relay records every one of them
     */
    void send(OutboxClaim claim) throws Exception;
}
