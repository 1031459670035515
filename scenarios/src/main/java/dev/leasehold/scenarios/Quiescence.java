package dev.leasehold.scenarios;

import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Lets a child JVM be stopped between transactions: its workers make each database transaction inside
 * {@link #transaction}; {@link #quiesce} waits until none is in flight and holds new ones back until {@link #resume}.
 * Used where the database cannot end the idle transaction of a process frozen inside it (H2: no server-side idle
 * bound), so that a {@code kill -STOP} there does not hold a row lock the new owner waits for. Thread-safe;
 * {@link #quiesce} and {@link #resume} are called on one thread (the child's stdin reader).
 */
final class Quiescence {

    /** A database transaction of a worker. */
    @FunctionalInterface
    interface Transaction {
        /**
         * @throws Exception what the transaction throws, passed on
         */
        void run() throws Exception;
    }

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock(true);

    /**
     * Runs {@code tx} unless the child is quiescing or quiet, else once it is resumed.
     *
     * @throws Exception what {@code tx} throws, or {@link InterruptedException} if interrupted while held back
     */
    void transaction(Transaction tx) throws Exception {
        lock.readLock().lockInterruptibly();
        try {
            tx.run();
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Holds new transactions back and waits until none is in flight. */
    void quiesce() {
        if (!lock.isWriteLockedByCurrentThread()) {
            lock.writeLock().lock();
        }
    }

    /** Lets held-back transactions go on; nothing if not quiet. */
    void resume() {
        if (lock.isWriteLockedByCurrentThread()) {
            lock.writeLock().unlock();
        }
    }
}
