package dev.leasehold.spring;

import org.springframework.integration.support.locks.DistributedLock;

/**
 * A lock from a {@link FencedLockRegistry}: Spring Integration's {@link DistributedLock} whose hold carries a fencing
 * token, higher than every earlier hold's of the same key, whichever process held it.
 *
 * <p>Send {@link #token()} with every write made under the lock and let the resource refuse a token lower than the
 * highest it has seen ({@code FenceGate}). A hold can be lost while its thread still runs (a ZooKeeper session lost,
 * a database hold expired and taken): the lock does not stop a late writer, the resource's check does.
 *
 * <p>Reentrant per thread, as Spring Integration's locks: each {@code lock} or successful {@code tryLock} needs its
 * {@code unlock}; the store is asked on the outermost acquire and release, and on a re-entrant {@code tryLock}, which
 * re-verifies the hold (a heartbeat). {@code unlock} by a thread that does not hold the lock throws {@link
 * IllegalMonitorStateException}; the outermost {@code unlock} of a hold that was lost throws {@link
 * java.util.ConcurrentModificationException}. Conditions are not supported.
 *
 * <p>Thread-safety: thread-safe; a hold belongs to the thread that took it.
 */
public interface FencedLock extends DistributedLock {

    /**
     * The token of the calling thread's hold: the same for the whole hold (nested acquires included).
     *
     * @return the token, positive
     * @throws IllegalStateException if the calling thread does not hold the lock, or its hold was lost (its ZooKeeper
     *                               session or connection lost, or its database ttl over by this process's clock)
     */
    long token();
}
