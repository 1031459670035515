package dev.leasehold.shedlock;

import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.lease.LeaseLock;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * The lock on the database the work already uses (PostgreSQL, H2, MariaDB; through PgBouncer too): a ShedLock {@link
 * ExtensibleLockProvider} whose locks are {@link FencedSimpleLock}s carrying a fencing token.
 *
 * <p>Built on {@link LeaseLock}: one row per lock name in the lease table ({@code leasehold_leases}, schema version
 * 6, shared with {@code LeaseElection}: a lock and an election must not use one name). Every call is one conditional
 * statement judged by its update count, on a connection of its own, committed before it returns (it never joins a
 * transaction of the caller: give it the pool, not a transaction-aware proxy):
 * <ol>
 *   <li><b>lock</b>: generation + 1, held for {@code lockAtMostFor}, only where the lock is free (never taken,
 *       unlocked, or expired). The new generation is the token: every acquisition's is higher than every earlier
 *       one's of the name, from any process, across restarts (the row is never deleted). The first lock of a name in
 *       a process may need an INSERT more.</li>
 *   <li><b>extend</b>: held for the new {@code lockAtMostFor} from now, only where this grant (its generation and its
 *       hold id) is still current and unexpired: the same token, or empty once it expired (taken or not).</li>
 *   <li><b>unlock</b>: free now, or, before {@code lockAtLeastFor} has passed, held for what remains of it; only
 *       where this grant is still current. Found lost: left alone (a WARN says the task ran past
 *       {@code lockAtMostFor}).</li>
 * </ol>
 *
 * <p><b>Clock.</b> Every instant is the database's clock: each statement compares with the database's {@code now},
 * never with this JVM's clock (ShedLock's {@code ClockProvider} and the {@code createdAt} of a {@code
 * LockConfiguration} are not used; only its durations). The one use of this JVM is a duration on its monotonic
 * clock: an unlock before {@code lockAtLeastFor} asks the database to keep the lock for what remains of it, measured
 * from the moment the lock's (or the extension's) answer arrived, so never less than asked.
 *
 * <p>Needs the schema ({@code FencedSchema.install}, or {@code FencedSchema.ddl} with a migration tool); without the
 * lease table the first {@code lock} fails with a {@link dev.leasehold.store.StoreException} that says to run {@code
 * FencedSchema.install}. A database failure is a {@link dev.leasehold.store.StoreException} naming the operation.
 * No Curator needed.
 *
 * <p>Thread-safety: thread-safe; one provider may serve any number of threads and lock names.
 */
public final class JdbcFencedLockProvider implements ExtensibleLockProvider {

    private final LeaseLock locks;
    private final String holder;

    /**
     * Locks in the default tables ({@code leasehold_*}), the database detected from the first connection.
     *
     * @param dataSource the database's pool
     * @throws IllegalArgumentException if it is null
     */
    public JdbcFencedLockProvider(DataSource dataSource) {
        this(dataSource, StoreConfig.defaults());
    }

    /**
     * Locks with the table prefix, lock timeout and (if forced) database of {@code config}.
     *
     * @param dataSource the database's pool
     * @param config the store's configuration, as for the gate
     * @throws IllegalArgumentException if an argument is null
     */
    public JdbcFencedLockProvider(DataSource dataSource, StoreConfig config) {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource must not be null");
        }
        if (config == null) {
            throw new IllegalArgumentException(
                    "config must not be null; StoreConfig.defaults() for the default tables");
        }
        this.locks = new LeaseLock(dataSource, config);
        this.holder = Holders.thisProcess();
    }

    /**
     * Takes the lock if no other holder's is valid: one statement (two for a name this process never locked).
     *
     * @param lockConfiguration the lock's name and durations (its {@code createdAt} is not used: the database's clock
     *     decides)
     * @return a {@link FencedSimpleLock}, or empty if the lock is held by another holder (in this process or another)
     * @throws IllegalArgumentException if the configuration is null, its name blank or longer than 200 characters,
     *     its {@code lockAtMostFor} zero or less or longer than {@link LeaseLock#MAX_TTL}, or its {@code
     *     lockAtLeastFor} negative
     * @throws dev.leasehold.store.StoreException if the database fails, or the lease table is missing (run
     *     {@code FencedSchema.install})
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration lockConfiguration) {
        String name = LockRequests.check(lockConfiguration);
        Duration atMost = ttl(lockConfiguration.getLockAtMostFor(), name);
        Optional<LeaseLock.Hold> hold = locks.tryLock(name, holder, atMost);
        if (hold.isEmpty()) {
            return Optional.empty();
        }
        long answered = System.nanoTime();
        HeldToken held = FencedLocks.push(name, hold.get().token());
        return Optional.of(new JdbcLock(held, locks, hold.get(), answered, lockConfiguration.getLockAtLeastFor()));
    }

    /** {@code lockAtMostFor} as the lease's ttl: whole milliseconds, rounded up; refused beyond the lease's maximum. */
    static Duration ttl(Duration lockAtMostFor, String name) {
        if (lockAtMostFor.compareTo(LeaseLock.MAX_TTL) > 0) {
            throw new IllegalArgumentException("lockAtMostFor must be at most " + LeaseLock.MAX_TTL + ", got "
                    + lockAtMostFor + " (lock '" + name + "')");
        }
        return Duration.ofMillis(LockRequests.millis(lockAtMostFor));
    }

    @Override
    public String toString() {
        return "JdbcFencedLockProvider[" + locks + "]";
    }
}
