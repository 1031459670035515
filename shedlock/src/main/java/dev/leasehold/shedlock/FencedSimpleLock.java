package dev.leasehold.shedlock;

import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A ShedLock lock that carries the fencing token of its acquisition.
 *
 * <p>The token is a plain {@code long} for {@link dev.leasehold.store.FenceGate}: the task advances the gate of the
 * resource it writes with it ({@code gate.advance(resource, token)}) and writes through the gate with it, so that a
 * task that outlived its lock ({@code lockAtMostFor} ran out, another replica took the lock and advanced the gate)
 * is refused with {@link dev.leasehold.store.StaleTokenException} instead of writing twice.
 *
 * <p>{@link #extend} returns, when the lock is still held, a {@code FencedSimpleLock} of the same grant: the same
 * name and the same token. This handle may then neither unlock nor extend ({@link IllegalStateException}), as
 * ShedLock's {@link SimpleLock} says.
 *
 * <p>Thread-safety: a handle may be used from any thread; of two concurrent calls on one handle, one wins and the
 * other throws {@link IllegalStateException}.
 */
public interface FencedSimpleLock extends SimpleLock {

    /**
     * The fencing token of this lock's acquisition: strictly higher than the token of every earlier acquisition of
     * the same lock name, by any process, as long as the store's history is continuous (the database's lease table,
     * or the ZooKeeper ensemble's data). An extension keeps it.
     *
     * @return the token
     */
    long token();

    /**
     * The lock's name, as in ShedLock's {@code LockConfiguration}.
     *
     * @return the name
     */
    String name();
}
