package dev.leasehold.spring.locks;

import java.time.Duration;

/**
 * Not API: where a {@link RegistryLock} takes its holds (ZooKeeper or the database). Every call comes from the thread
 * that holds (or is taking) the hold, one thread per key at a time in this process: the registry's per-key {@code
 * ReentrantLock} sees to that.
 *
 * <p>Thread-safety: implementations are thread-safe.
 */
public interface LockStore {

    /** One hold in the store. */
    interface Hold {

        /**
         * The hold's token.
         *
         * @return positive, higher than every earlier hold's of the key
         */
        long token();
    }

    /**
     * Checks a key at the door.
     *
     * @param key the key given to {@code obtain}
     * @throws IllegalArgumentException if the store cannot use it, saying why
     */
    void checkKey(String key);

    /**
     * Checks a ttl at the door.
     *
     * @param ttl the ttl given to a lock call
     * @throws IllegalArgumentException if null or out of the store's range
     */
    void checkTtl(Duration ttl);

    /**
     * The ttl of a hold taken without one.
     *
     * @return the registry's ttl
     */
    Duration defaultTtl();

    /**
     * Takes a hold of {@code key}, waiting up to {@code timeoutNanos} (forever if negative).
     *
     * @param key          the key, checked
     * @param ttl          the hold's ttl, checked
     * @param timeoutNanos the longest wait; 0 does not wait; negative waits as long as it takes
     * @return the hold, or null if not taken in time
     * @throws InterruptedException if interrupted while waiting (nothing is held then)
     */
    Hold acquire(String key, Duration ttl, long timeoutNanos) throws InterruptedException;

    /**
     * Whether the hold stands, as this process knows without asking the store.
     *
     * @param hold a hold of the calling thread
     * @return false once it is known or possibly lost
     */
    boolean stands(Hold hold);

    /**
     * Re-verifies the hold with the store (a re-entrant {@code tryLock}); the database renews it.
     *
     * @param hold a hold of the calling thread
     * @param ttl  the ttl to renew for; null for the hold's own
     * @return true if it still stands
     */
    boolean verify(Hold hold, Duration ttl);

    /**
     * Ends the hold in the store.
     *
     * @param hold a hold of the calling thread
     * @return true if it stood until now; false if it had been lost (whatever was left of it is cleaned up)
     */
    boolean release(Hold hold);

    /**
     * The registry dropped the key's lock from its cache (nobody here holds or awaits it).
     *
     * @param key the key
     */
    void forget(String key);

    /**
     * Names the store for {@code toString()}.
     *
     * @return e.g. {@code zookeeper /app/locks}
     */
    String describe();
}
