package dev.leasehold.spring.locks;

import dev.leasehold.spring.FencedLock;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Not API: the {@link FencedLock} of one key. A {@link ReentrantLock} excludes this process's threads and counts the
 * holder's nesting; the {@link LockStore} is asked on the outermost acquire and release only, and on a re-entrant
 * {@code tryLock}, which is a heartbeat:
 * <ol>
 *   <li>the hold is verified with the store (the database renews it): still standing, {@code true};</li>
 *   <li>lost: the store's remains are cleaned up and {@code false} returned, so a caller that polls its lock with
 *       {@code tryLock} (Spring Integration's {@code LockRegistryLeaderInitiator}) learns it lost the lock;</li>
 *   <li>a later re-entrant {@code tryLock} (or {@code lock}) on a lost hold takes a new hold, with a new token, at that
 *       nesting depth: the {@code unlock} that matches it releases it in the store, so a caller that never unlocks
 *       the lost outer hold (as that initiator does not) leaves nothing behind in the store.</li>
 * </ol>
 * The {@code unlock} that matches a lost hold throws Spring Integration's {@link ConcurrentModificationException}.
 *
 * <p>Thread-safety: thread-safe; {@code hold} is read and written by the thread holding {@code local} only.
 */
public final class RegistryLock implements FencedLock {

    private final String key;
    private final LockStore store;
    private final ReentrantLock local = new ReentrantLock();
    private volatile long lastUsedNanos = System.nanoTime();
    private LockStore.Hold hold;
    private int holdDepth;
    private long lostToken;

    RegistryLock(String key, LockStore store) {
        this.key = key;
        this.store = store;
    }

    @Override
    public void lock() {
        lock(store.defaultTtl());
    }

    @Override
    public void lock(Duration ttl) {
        store.checkTtl(ttl);
        local.lock();
        if (hold != null) {
            return;
        }
        boolean interrupted = false;
        try {
            while (hold == null) {
                try {
                    take(ttl, -1);
                } catch (InterruptedException e) {
                    interrupted = true; // lock() is not interruptible: wait on, and restore the flag after
                }
            }
        } catch (RuntimeException | Error e) {
            local.unlock();
            throw e;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        Duration ttl = store.defaultTtl();
        local.lockInterruptibly();
        if (hold != null) {
            return;
        }
        try {
            take(ttl, -1);
        } catch (InterruptedException | RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
    }

    @Override
    public boolean tryLock() {
        try {
            return tryLock(Duration.ZERO, store.defaultTtl());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.ofNanos(Math.max(0, unit.toNanos(time))), null);
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        if (waitTime == null) {
            throw new IllegalArgumentException("waitTime must not be null");
        }
        if (ttl != null) {
            store.checkTtl(ttl);
        }
        long start = System.nanoTime();
        long wait = Math.max(0, waitTime.toNanos());
        boolean got = wait == 0 ? local.tryLock() : local.tryLock(wait, TimeUnit.NANOSECONDS);
        if (!got) {
            return false;
        }
        boolean held = false;
        try {
            if (hold != null && local.getHoldCount() > 1) {
                held = store.verify(hold, ttl);
                if (!held) {
                    lose();
                }
                return held;
            }
            if (hold == null) {
                long left = Math.max(0, wait - (System.nanoTime() - start));
                held = take(ttl == null ? store.defaultTtl() : ttl, left);
            }
            return held;
        } finally {
            if (!held) {
                local.unlock();
            }
        }
    }

    @Override
    public void unlock() {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException(
                    "The current thread does not hold the lock '" + key + "' of " + store.describe());
        }
        int count = local.getHoldCount();
        if (hold != null ? count > holdDepth : count > 1) {
            local.unlock(); // a nested hold: the store is not asked
            return;
        }
        try {
            LockStore.Hold mine = hold;
            hold = null;
            holdDepth = 0;
            HeldLocks.pop(this);
            if (mine == null || !store.release(mine)) {
                throw new ConcurrentModificationException("Lock was released in the store due to expiration. The"
                        + " integrity of data protected by this lock may have been compromised. (lock '" + key
                        + "', token " + (mine == null ? lostToken : mine.token()) + ", " + store.describe() + ")");
            }
        } finally {
            lastUsedNanos = System.nanoTime();
            local.unlock();
        }
    }

    @Override
    public long token() {
        LockStore.Hold mine = local.isHeldByCurrentThread() ? hold : null;
        if (mine == null) {
            throw new IllegalStateException("The current thread does not hold the lock '" + key + "'"
                    + (local.isHeldByCurrentThread() ? " any more: its hold (token " + lostToken + ") was lost" : ""));
        }
        if (!store.stands(mine)) {
            throw new IllegalStateException("The hold of lock '" + key + "' (token " + mine.token() + ") was lost or"
                    + " may have expired: " + store.describe());
        }
        return mine.token();
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Conditions are not supported by " + this);
    }

    String key() {
        return key;
    }

    /** Whether the registry may drop this lock: nobody here holds or awaits it and it was not used since the cutoff. */
    boolean idleSince(long cutoffNanos) {
        return !local.isLocked() && !local.hasQueuedThreads() && lastUsedNanos - cutoffNanos <= 0;
    }

    /** Renews (database) or checks (ZooKeeper) the calling thread's hold; for {@code renewLock}. */
    void renew(Duration ttl) {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("The current thread does not hold the lock '" + key + "'");
        }
        if (ttl != null) {
            store.checkTtl(ttl);
        }
        if (hold == null || !store.verify(hold, ttl)) {
            if (hold != null) {
                lose();
            }
            throw new IllegalStateException("Could not renew the lock '" + key + "': its hold (token " + lostToken
                    + ") was lost; " + store.describe());
        }
        lastUsedNanos = System.nanoTime();
    }

    private boolean take(Duration ttl, long timeoutNanos) throws InterruptedException {
        hold = store.acquire(key, ttl, timeoutNanos);
        holdDepth = hold == null ? 0 : local.getHoldCount();
        lastUsedNanos = System.nanoTime();
        if (hold != null) {
            HeldLocks.push(this);
        }
        return hold != null;
    }

    private void lose() {
        LockStore.Hold mine = hold;
        hold = null;
        holdDepth = 0;
        HeldLocks.pop(this);
        lostToken = mine.token();
        store.release(mine); // cleans up what is left of it; it was lost, whatever the answer
    }

    @Override
    public String toString() {
        return "FencedLock[" + key + ", " + store.describe() + (local.isLocked() ? ", held in this process" : "") + "]";
    }
}
