package dev.leasehold.spring;

import dev.leasehold.recipes.FencingToken;
import dev.leasehold.spring.lease.LeaseLeaderInitiator;
import dev.leasehold.spring.zookeeper.FencedLeaderInitiator;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.AbstractLeaderEvent;

/**
 * The Spring Integration leadership {@link Context} of one grant, with the grant's {@link FencingToken}: the one
 * context type a {@code Candidate} casts to, on either election backend.
 *
 * <p>{@link FencedLeaderInitiator} (ZooKeeper, the default backend) and {@link LeaseLeaderInitiator}
 * ({@code leasehold.election.backend=jdbc}, whose contexts are also {@link LeaseContext}s) hand it to
 * {@code Candidate.onGranted} and {@code onRevoked}, and put it in the {@code OnGrantedEvent} and
 * {@code OnRevokedEvent} they publish. Send {@code token().value()} with every write the leader makes; the resource
 * (a {@code FenceGate}, say) refuses a token lower than the highest it has seen. {@code token().value()} is the
 * leader's znode's czxid on ZooKeeper, the lease row's generation on the database: a {@code long} that grows with each
 * grant, either way.
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
     * @return the same token for the whole grant, also after it ended; on the database lease its {@code path} is
     *     {@code <lease table>/<role>}
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
     * The fenced context carried by a leader event, if the event came from a {@link FencedLeaderInitiator} or a
     * {@link LeaseLeaderInitiator}.
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
                + event.getSource() + ", not a FencedLeaderInitiator or LeaseLeaderInitiator): it carries no fencing"
                + " token");
    }
}
