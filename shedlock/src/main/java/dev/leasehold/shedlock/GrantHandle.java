package dev.leasehold.shedlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * What every provider's lock handle shares: single use (the first {@link #unlock} or {@link #extend} consumes it, any
 * later call throws {@link IllegalStateException}), the grant's entry in {@link FencedLocks} (ended at unlock, in
 * every path, and when an extension finds the lock lost), and the checks of an extension's arguments. A provider
 * supplies the two writes.
 *
 * <p>Thread-safety: thread-safe; one call wins the handle.
 */
abstract class GrantHandle implements FencedSimpleLock {

    private final HeldToken held;
    private final AtomicBoolean valid = new AtomicBoolean(true);

    /** @param held the grant's entry, shared with the handles of its extensions */
    GrantHandle(HeldToken held) {
        this.held = held;
    }

    @Override
    public final long token() {
        return held.token();
    }

    @Override
    public final String name() {
        return held.name();
    }

    final HeldToken held() {
        return held;
    }

    @Override
    public final void unlock() {
        consume();
        try {
            release();
        } finally {
            held.end();
        }
    }

    @Override
    public final Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
        checkValid();
        LockRequests.durations(name(), lockAtMostFor, lockAtLeastFor);
        consume();
        Optional<GrantHandle> next;
        try {
            next = prolong(lockAtMostFor, lockAtLeastFor);
        } catch (RuntimeException | Error e) {
            valid.set(true); // nothing is known to have changed: the handle may still unlock or extend
            throw e;
        }
        if (next.isEmpty()) {
            held.end(); // lost: no handle of this grant can unlock any more
        }
        return next.map(SimpleLock.class::cast);
    }

    /** Ends the grant at the store: free now, or at its lockAtLeastFor. A grant found lost is left as it is. */
    abstract void release();

    /** @return the same grant held for {@code lockAtMostFor} from now, or empty if it was lost or had expired */
    abstract Optional<GrantHandle> prolong(Duration lockAtMostFor, Duration lockAtLeastFor);

    private void checkValid() {
        if (!valid.get()) {
            throw used();
        }
    }

    private void consume() {
        if (!valid.compareAndSet(true, false)) {
            throw used();
        }
    }

    private IllegalStateException used() {
        return new IllegalStateException("lock '" + name() + "' (token " + token() + ") is not valid: it has already"
                + " been unlocked or extended (use the lock that extend returned)");
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + name() + ", token " + token() + "]";
    }
}
