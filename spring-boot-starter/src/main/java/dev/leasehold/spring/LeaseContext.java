package dev.leasehold.spring;

import dev.leasehold.recipes.FencingToken;
import dev.leasehold.spring.lease.LeaseLeaderInitiator;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.AbstractLeaderEvent;

/**
 * The Spring Integration leadership {@link Context} of one grant of a lease election on the database
 * ({@code leasehold.election.backend=jdbc}), with the grant's token: the lease row's generation. A
 * {@link FencedContext}, so a candidate written for either backend casts to {@code FencedContext} and reads
 * {@code token().value()}; this type adds nothing a candidate needs.
 *
 * <p>{@link LeaseLeaderInitiator} hands it to {@code Candidate.onGranted} and {@code onRevoked}, and puts it in the
 * {@code OnGrantedEvent} and {@code OnRevokedEvent} it publishes. Send {@code token().value()} with every write the
 * leader makes; the resource (a {@code FenceGate}, say) refuses a token lower than the highest it has seen.
 *
 * <p>IMPORTANT: {@link #isLeader()} is a belief, never permission to write: by the time it returns, leadership may
 * have been lost. Only the resource's token check makes a stale leader's writes harmless.
 *
 * <p>Thread-safety: implementations are thread-safe.
 */
public interface LeaseContext extends FencedContext {

    /**
     * The token of this grant.
     *
     * @return the same token for the whole grant, also after it ended: {@code value()} is the lease row's generation,
     *     {@code path} {@code <lease table>/<role>}, {@code participantId} this holder's id
     */
    @Override
    FencingToken token();

    /**
     * {@code true} while this grant lasts: its renew deadline has not passed and it was not lost or yielded. A belief,
     * not a guarantee.
     */
    @Override
    boolean isLeader();

    /**
     * Gives this grant up: {@code onRevoked} is called and {@code OnRevokedEvent} published, the lease is released,
     * and the participant joins the election again. Does nothing once the grant has ended. Does not wait; may be called
     * from {@code onGranted}.
     */
    @Override
    void yield();

    /**
     * Tells the election that the leader's work advanced, for {@code leasehold.election.progress-deadline}: without a
     * call within the deadline the grant is given up ({@code onRevoked}, cause {@code STALLED}), the lease released,
     * and another instance leads. Cheap (one volatile write: no lock, no I/O, no statement); call it from the work
     * loop as often as you like. Ignored once this grant has ended, and without a deadline.
     */
    void progress();

    /**
     * The lease context carried by a leader event, if the event came from a {@link LeaseLeaderInitiator}.
     *
     * @param event an {@code OnGrantedEvent} or {@code OnRevokedEvent}
     * @return its context as a {@code LeaseContext}
     * @throws IllegalArgumentException if the event's context is not a lease context
     */
    static LeaseContext of(AbstractLeaderEvent event) {
        if (event == null) {
            throw new IllegalArgumentException("event must not be null");
        }
        if (event.getContext() instanceof LeaseContext lease) {
            return lease;
        }
        throw new IllegalArgumentException("the event's context is not a LeaseContext (it was published by "
                + event.getSource() + ", not a LeaseLeaderInitiator): it carries no lease token");
    }
}
