package dev.leasehold.shedlock;

import dev.leasehold.store.lease.LeaseLock;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A grant of {@link JdbcFencedLockProvider}: a {@link LeaseLock.Hold} (its generation is the token) and what remains
 * of {@code lockAtLeastFor}, counted on this JVM's monotonic clock from the moment the grant's (or its extension's)
 * answer arrived.
 *
 * <p>Thread-safety: thread-safe (single use, see {@link GrantHandle}).
 */
final class JdbcLock extends GrantHandle {

    private static final Logger log = LoggerFactory.getLogger(JdbcFencedLockProvider.class);

    private final LeaseLock locks;
    private final LeaseLock.Hold hold;
    private final long answeredNanos;
    private final Duration lockAtLeastFor;

    JdbcLock(HeldToken held, LeaseLock locks, LeaseLock.Hold hold, long answeredNanos, Duration lockAtLeastFor) {
        super(held);
        this.locks = locks;
        this.hold = hold;
        this.answeredNanos = answeredNanos;
        this.lockAtLeastFor = lockAtLeastFor;
    }

    @Override
    void release() {
        Duration remaining = lockAtLeastFor.minusNanos(System.nanoTime() - answeredNanos);
        boolean released = remaining.isNegative() || remaining.isZero()
                ? locks.unlock(hold)
                : locks.release(hold, Duration.ofMillis(LockRequests.millis(remaining)));
        if (!released) {
            log.warn(
                    "lock '{}' (token {}) had expired before this unlock (and may have been taken by another holder):"
                            + " the task ran past lockAtMostFor; its writes with token {} are refused wherever a later"
                            + " holder advanced the fence",
                    name(),
                    token(),
                    token());
        }
    }

    @Override
    Optional<GrantHandle> prolong(Duration lockAtMostFor, Duration lockAtLeastFor) {
        Duration ttl = JdbcFencedLockProvider.ttl(lockAtMostFor, name());
        if (!locks.renew(hold, ttl)) {
            log.info("lock '{}' (token {}) could not be extended: it had expired", name(), token());
            return Optional.empty();
        }
        return Optional.of(new JdbcLock(held(), locks, hold, System.nanoTime(), lockAtLeastFor));
    }
}
