package dev.leasehold.spring;

import dev.leasehold.spring.locks.JdbcLockStore;
import dev.leasehold.spring.locks.LockTable;
import dev.leasehold.spring.locks.ZookeeperLockStore;
import dev.leasehold.store.StoreConfig;
import java.time.Duration;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * Spring Integration's {@code LockRegistry} over Leasehold's fenced locks: each hold gets a token ({@link
 * FencedLock#token()}) to send with every write made under it. Two stores:
 * <ul>
 *   <li>{@link #zookeeper}: a {@code FencedMutex} per key under a root path; the token is the hold's node's czxid; a
 *       hold lasts while the client's session does and ends at once on SUSPENDED or LOST;</li>
 *   <li>{@link #jdbc}: a {@code LeaseLock} row per key in {@code leasehold_leases}; the token is the row's generation;
 *       a hold ends after its ttl unless renewed ({@link #renewLock(Object, Duration)} or a re-entrant {@code
 *       tryLock}), by the database's clock.</li>
 * </ul>
 *
 * <p>The contract is Spring Integration's own registries': {@link #obtain} gives the same lock object for the same key
 * (until {@link #expireUnusedOlderThan} drops it, which it never does while the lock is held or awaited in this
 * process); locks are reentrant per thread, a per-key {@code ReentrantLock} excluding this process's threads; the store
 * is asked only on the outermost acquire and release, and on a re-entrant {@code tryLock}, which re-verifies the hold
 * (Spring Integration's {@code LockRegistryLeaderInitiator} calls {@code tryLock} again on a lock it holds and takes
 * {@code false} as lost). Keys are strings.
 *
 * <p>IMPORTANT: a lock is a belief, not mutual exclusion. A holder paused past its ttl or its session still believes it
 * holds while another holds with a higher token. Only the resource's token check stops the late holder's writes.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class FencedLockRegistry implements ExpirableLockRegistry<FencedLock>, RenewableLockRegistry<FencedLock> {

    private final LockTable table;

    private FencedLockRegistry(LockTable table) {
        this.table = table;
    }

    /**
     * A registry on ZooKeeper: the lock of key {@code k} is a {@code FencedMutex} on {@code root + "/" + k}. A
     * {@code ttl} given to {@code lock(Duration)} or {@code tryLock(Duration, Duration)} is checked and not used: a
     * hold lasts while the client's session does.
     *
     * @param client a Curator client, started before the first lock
     * @param root   the parent path of the locks, e.g. {@code /app/locks}
     * @return the registry
     * @throws IllegalArgumentException if {@code client} is null or {@code root} is not an absolute ZooKeeper path
     */
    public static FencedLockRegistry zookeeper(CuratorFramework client, String root) {
        return new FencedLockRegistry(new LockTable(new ZookeeperLockStore(client, root)));
    }

    /**
     * A registry on the database, with {@link StoreConfig#defaults()} (the table {@code leasehold_leases}, schema
     * version 6 or later: {@code FencedSchema.install}). Each lock statement runs on a connection of its own from
     * {@code dataSource}, committed at once: it never joins the caller's transaction.
     *
     * @param dataSource the pool (not a {@code TransactionAwareDataSourceProxy}, which is refused)
     * @param ttl        how long a hold lasts unless renewed: 1 ms to 365 days
     * @return the registry
     * @throws IllegalArgumentException if an argument is null, out of range or refused
     */
    public static FencedLockRegistry jdbc(DataSource dataSource, Duration ttl) {
        return jdbc(dataSource, StoreConfig.defaults(), ttl);
    }

    /**
     * A registry on the database, with the tables and lock timeout of {@code config}.
     *
     * @param dataSource the pool (not a {@code TransactionAwareDataSourceProxy}, which is refused)
     * @param config     the store's configuration (table prefix, lock timeout, dialect)
     * @param ttl        how long a hold lasts unless renewed: 1 ms to 365 days
     * @return the registry
     * @throws IllegalArgumentException if an argument is null, out of range or refused
     */
    public static FencedLockRegistry jdbc(DataSource dataSource, StoreConfig config, Duration ttl) {
        return new FencedLockRegistry(new LockTable(new JdbcLockStore(dataSource, config, ttl)));
    }

    /**
     * The lock of {@code lockKey}: the same object for the same key while it is in the registry's cache.
     *
     * @param lockKey a string: for ZooKeeper a valid path below the root, for the database a lock name (non-blank, at
     *                most 200 characters, no blanks at either end, no control characters)
     * @return the lock
     * @throws IllegalArgumentException if the key is not a string or breaks these rules
     */
    @Override
    public FencedLock obtain(Object lockKey) {
        return table.obtain(lockKey);
    }

    /**
     * Drops from the cache the locks not used for more than {@code age} milliseconds; a lock held or awaited by a thread
     * of this process is never dropped.
     *
     * @param age in milliseconds
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        table.expireUnusedOlderThan(age);
    }

    /**
     * Renews the calling thread's hold of {@code lockKey} for the registry's ttl (database), or checks that it stands
     * (ZooKeeper).
     *
     * @param lockKey the key
     * @throws IllegalStateException        if no lock of that key is in the registry, or the hold was lost
     * @throws IllegalMonitorStateException if the calling thread does not hold the lock
     */
    @Override
    public void renewLock(Object lockKey) {
        table.renew(lockKey, null);
    }

    /**
     * Renews the calling thread's hold of {@code lockKey} until now + {@code ttl} by the database's clock (database),
     * or checks that it stands (ZooKeeper: the ttl is checked and not used).
     *
     * @param lockKey the key
     * @param ttl     1 ms to 365 days
     * @throws IllegalArgumentException     if {@code ttl} is null or out of range
     * @throws IllegalStateException        if no lock of that key is in the registry, or the hold was lost
     * @throws IllegalMonitorStateException if the calling thread does not hold the lock
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        if (ttl == null) {
            throw new IllegalArgumentException("ttl must not be null");
        }
        table.renew(lockKey, ttl);
    }

    @Override
    public String toString() {
        return "FencedLockRegistry[" + table.describe() + "]";
    }
}
