package dev.leasehold.spring;

import dev.leasehold.recipes.FencingToken;
import dev.leasehold.spring.zookeeper.FencedLeaderInitiator;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.AbstractLeaderEvent;

/**
 * The Spring Integration leadership {@link Context} of one grant, with the grant's {@link FencingToken}.
 *
 * <p>{@link FencedLeaderInitiator} hands it to {@code Candidate.onGranted} and {@code onRevoked}, and puts it in the
 * {@code OnGrantedEvent} and {@code OnRevokedEvent} it publishes. Send {@code token().value()} with every write the
 * leader makes; the resource (a {@code FenceGate}, say) refuses a token lower than the highest it has seen.
 *
 * <p>IMPORTANT: {@link #isLeader()} is a belief, never permission to write: by the time it returns, leadership may
 * have been lost. Only the resource's token check makes a stale leader's writes harmless.
 *
 * <p>Thread-safety: implementations are thread-safe.
 */
public interface FencedContext extends Context {

    /**
     * The token of this grant.
     *
     * @return the same token for the whole grant, also after it ended
     */
    FencingToken token();

    /**
     * {@code true} while this grant's token has not been withdrawn (no SUSPENDED, LOST, yield or stop since).
     * A belief, not a guarantee.
     */
    @Override
    boolean isLeader();

    /**
     * Gives this grant up: the token is withdrawn, {@code onRevoked} is called and {@code OnRevokedEvent} published on
     * the initiator's thread, the election node is deleted, and the participant queues again for leadership. Does
     * nothing once the grant has ended. Does not wait; may be called from {@code onGranted}.
     */
    @Override
    void yield();

    /**
     * Tells the election that the leader's work advanced, for {@code leasehold.election.progress-deadline}: without
     * a call within the deadline the grant is given up ({@code onRevoked}, cause {@code STALLED}) and another instance
     * leads. Cheap (one volatile write: no lock, no I/O); call it from the work loop as often as you like. Ignored
     * once this grant has ended, and without a deadline.
     */
    void progress();

    /**
     * The fenced context carried by a leader event, if the event came from a {@link FencedLeaderInitiator}.
     *
     * @param event an {@code OnGrantedEvent} or {@code OnRevokedEvent}
     * @return its context as a {@code FencedContext}
     * @throws IllegalArgumentException if the event's context is not fenced (it came from another initiator)
     */
    static FencedContext of(AbstractLeaderEvent event) {
        if (event == null) {
            throw new IllegalArgumentException("event must not be null");
        }
        if (event.getContext() instanceof FencedContext fenced) {
            return fenced;
        }
        throw new IllegalArgumentException("the event's context is not a FencedContext (it was published by "
                + event.getSource() + ", not a FencedLeaderInitiator): it carries no fencing token");
    }
}
