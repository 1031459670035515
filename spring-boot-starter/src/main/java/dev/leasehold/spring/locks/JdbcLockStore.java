package dev.leasehold.spring.locks;

import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.lease.LeaseLock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * Not API: holds on the database, one {@link LeaseLock} row per key (token = generation). Each hold is stored under a
 * holder id unique to it (LeaseLock's suffix), so two processes never renew or release each other's holds. A hold is
 * taken to stand, by this process, until its ttl measured on this machine's monotonic clock from before the statement
 * was sent: never longer than the database can keep it.
 *
 * <p>A lock waiting for a held key polls every {@link #POLL} (at most), as Spring Integration's {@code JdbcLockRegistry}
 * does. Each statement runs on a connection of its own from the pool: it never joins the caller's transaction.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class JdbcLockStore implements LockStore {

    /** The longest pause between two tries of a waiting lock. */
    static final Duration POLL = Duration.ofMillis(100);

    private static final String TX_PROXY = "org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy";

    private final LeaseLock locks;
    private final Duration ttl;
    private final String holder = "lock-registry-" + ProcessHandle.current().pid();

    /**
     * A store on {@code dataSource}.
     *
     * @param dataSource the pool
     * @param config     the store's configuration
     * @param ttl        the registry's ttl
     * @throws IllegalArgumentException if an argument is null, the ttl out of range, or the data source a proxy that
     *                                  would join the caller's transaction
     */
    public JdbcLockStore(DataSource dataSource, StoreConfig config, Duration ttl) {
        if (dataSource != null && dataSource.getClass().getName().equals(TX_PROXY)) {
            throw new IllegalArgumentException("a TransactionAwareDataSourceProxy would make the lock's statements join"
                    + " the caller's transaction; pass its target data source (the pool) instead");
        }
        this.locks = new LeaseLock(dataSource, config);
        checkTtl(ttl);
        this.ttl = ttl;
    }

    @Override
    public void checkKey(String key) {
        if (key.isBlank()
                || key.length() > 200
                || !key.strip().equals(key)
                || key.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("a database lock key must be non-blank, at most 200 characters, with no"
                    + " blanks at either end and no control characters, was '" + key.replaceAll("\\p{Cntrl}", "?")
                    + "'");
        }
    }

    @Override
    public void checkTtl(Duration ttl) {
        if (ttl == null || ttl.compareTo(Duration.ofMillis(1)) < 0 || ttl.compareTo(LeaseLock.MAX_TTL) > 0) {
            throw new IllegalArgumentException("ttl must be from 1 ms to " + LeaseLock.MAX_TTL + ", was " + ttl);
        }
    }

    @Override
    public Duration defaultTtl() {
        return ttl;
    }

    @Override
    public Hold acquire(String key, Duration ttl, long timeoutNanos) throws InterruptedException {
        long start = System.nanoTime();
        while (true) {
            long sent = System.nanoTime();
            Optional<LeaseLock.Hold> taken =
                    locks.tryLock(key, holder + "-t" + Thread.currentThread().getId(), ttl);
            if (taken.isPresent()) {
                return new JdbcHold(taken.get(), ttl, sent);
            }
            long waited = System.nanoTime() - start;
            if (timeoutNanos >= 0 && waited >= timeoutNanos) {
                return null;
            }
            long pause = timeoutNanos < 0 ? POLL.toNanos() : Math.min(POLL.toNanos(), timeoutNanos - waited);
            // polling the row, as JdbcLockRegistry does: the database tells no waiter when a lock is free
            TimeUnit.NANOSECONDS.sleep(pause);
        }
    }

    @Override
    public boolean stands(Hold hold) {
        return System.nanoTime() - ((JdbcHold) hold).standsUntil < 0;
    }

    @Override
    public boolean verify(Hold hold, Duration ttl) {
        JdbcHold h = (JdbcHold) hold;
        Duration renewal = ttl == null ? h.ttl : ttl;
        long sent = System.nanoTime();
        if (!stands(h) || !locks.renew(h.hold, renewal)) {
            return false;
        }
        h.standsUntil = sent + renewal.toNanos();
        return true;
    }

    @Override
    public boolean release(Hold hold) {
        JdbcHold h = (JdbcHold) hold;
        // unlock is conditional on this hold being current and unexpired by the database's clock
        return locks.unlock(h.hold);
    }

    @Override
    public void forget(String key) {
        // nothing cached per key
    }

    @Override
    public String describe() {
        return "jdbc " + locks + ", ttl " + ttl;
    }

    /** A database hold and until when this process takes it to stand (its holder's thread only writes it). */
    private static final class JdbcHold implements Hold {
        private final LeaseLock.Hold hold;
        private final Duration ttl;
        private volatile long standsUntil;

        JdbcHold(LeaseLock.Hold hold, Duration ttl, long sentNanos) {
            this.hold = hold;
            this.ttl = ttl;
            this.standsUntil = sentNanos + ttl.toNanos();
        }

        @Override
        public long token() {
            return hold.token();
        }
    }
}
