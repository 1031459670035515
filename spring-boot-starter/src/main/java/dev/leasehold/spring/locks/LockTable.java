package dev.leasehold.spring.locks;

import dev.leasehold.spring.FencedLock;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Not API: a registry's locks by key, over one {@link LockStore}. A lock is dropped only by {@link
 * #expireUnusedOlderThan}, and never while a thread of this process holds or awaits it (the held-lock evictions of
 * Spring Integration #11041 and #11113 cannot happen: there is no capacity bound).
 *
 * <p>Thread-safety: thread-safe.
 */
public final class LockTable {

    private final LockStore store;
    private final ConcurrentMap<String, RegistryLock> locks = new ConcurrentHashMap<>();

    /**
     * A table over {@code store}.
     *
     * @param store where the locks take their holds
     */
    public LockTable(LockStore store) {
        this.store = store;
    }

    /**
     * The lock of a key.
     *
     * @param lockKey a string the store accepts
     * @return the same lock for the same key while it is in the table
     * @throws IllegalArgumentException if the key is not a string or the store refuses it
     */
    public FencedLock obtain(Object lockKey) {
        return locks.computeIfAbsent(key(lockKey), k -> new RegistryLock(k, store));
    }

    /**
     * Drops the locks nobody here holds or awaits and nobody used for more than {@code ageMillis}.
     *
     * @param ageMillis the age in milliseconds
     */
    public void expireUnusedOlderThan(long ageMillis) {
        long cutoff = System.nanoTime() - Math.max(0, ageMillis) * 1_000_000L;
        for (String key : locks.keySet()) {
            boolean[] dropped = {false};
            locks.computeIfPresent(key, (k, lock) -> {
                dropped[0] = lock.idleSince(cutoff);
                return dropped[0] ? null : lock;
            });
            if (dropped[0]) {
                store.forget(key);
            }
        }
    }

    /**
     * Renews the calling thread's hold of a key.
     *
     * @param lockKey the key
     * @param ttl     the ttl, or null for the registry's
     * @throws IllegalStateException        if no lock of that key is in the table, or its hold was lost
     * @throws IllegalMonitorStateException if the calling thread does not hold it
     */
    public void renew(Object lockKey, Duration ttl) {
        String key = key(lockKey);
        RegistryLock lock = locks.get(key);
        if (lock == null) {
            throw new IllegalStateException("No lock of key '" + key + "' in this registry: obtain and lock it first");
        }
        lock.renew(ttl);
    }

    /**
     * Names the store.
     *
     * @return the store's description
     */
    public String describe() {
        return store.describe();
    }

    private String key(Object lockKey) {
        if (!(lockKey instanceof String key)) {
            throw new IllegalArgumentException("a lock key must be a String, was "
                    + (lockKey == null ? "null" : lockKey.getClass().getName()));
        }
        store.checkKey(key);
        return key;
    }
}
