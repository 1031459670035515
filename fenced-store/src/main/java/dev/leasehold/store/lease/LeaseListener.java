package dev.leasehold.store.lease;

/**
 * Told when a {@link LeaseElection} gains or loses the lease.
 *
 * <p>Calls run on the election's own event thread (one per election), one at a time and in order, never under a lock
 * of the election and never on the thread that renews: a slow listener cannot delay a renew. A call that throws is
 * logged with the election's name, holder and token, and the election goes on.
 *
 * <p>Per grant, a listener is told either nothing, or {@code acquired(token)} and later {@code lost(token, cause)}
 * with the same token: never lost first, never an acquired without its lost (closing tells
 * {@code lost(token, CLOSED)}, and releases the lease only after that call returned).
 *
 * <p>IMPORTANT: by the time a call runs, the lease may already have changed hands. Never treat {@code acquired} as
 * permission to write without the token: send {@code token} with every write and let the resource check it (for
 * instance with {@code FenceGate}), and check {@link LeaseElection#remaining()} before a side effect the resource
 * cannot check.
 *
 * <p>Thread-safety: implementations are called by one thread at a time per election.
 */
public interface LeaseListener {

    /**
     * This holder now leads, with {@code token}. Fence the resource first ({@code FenceGate.advance}), then act.
     *
     * @param token the grant's generation: send it with every write
     */
    void acquired(long token);

    /**
     * The grant that carried {@code token} is over. Stop all work done under it at once, and return only when it has
     * stopped: a graceful close releases the lease after this returns.
     *
     * @param token the token of the grant that ended
     * @param cause why it ended
     */
    void lost(long token, LeaseLoss cause);
}
