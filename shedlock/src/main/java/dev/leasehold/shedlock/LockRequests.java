package dev.leasehold.shedlock;

import java.time.Duration;
import net.javacrumbs.shedlock.core.LockConfiguration;

/**
 * The checks every provider makes at the door, beyond ShedLock's own in {@link LockConfiguration} (which refuses a
 * null or empty name, a negative {@code lockAtMostFor} and a {@code lockAtLeastFor} longer than it): each refusal is
 * an {@link IllegalArgumentException} that names the field. Stateless.
 */
final class LockRequests {

    private LockRequests() {}

    /** @return the configuration's name, once the whole configuration is valid */
    static String check(LockConfiguration config) {
        if (config == null) {
            throw new IllegalArgumentException("lockConfiguration must not be null");
        }
        String name = config.getName();
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException(
                    "lock name must not be blank, got '" + name + "' (LockConfiguration.name)");
        }
        durations(name, config.getLockAtMostFor(), config.getLockAtLeastFor());
        return name;
    }

    /** The durations of a lock or an extension. */
    static void durations(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
        if (lockAtMostFor == null || lockAtMostFor.isNegative() || lockAtMostFor.isZero()) {
            throw new IllegalArgumentException(
                    "lockAtMostFor must be positive, got " + lockAtMostFor + " (lock '" + name + "')");
        }
        if (lockAtLeastFor == null || lockAtLeastFor.isNegative()) {
            throw new IllegalArgumentException(
                    "lockAtLeastFor must be zero or positive, got " + lockAtLeastFor + " (lock '" + name + "')");
        }
        if (lockAtLeastFor.compareTo(lockAtMostFor) > 0) {
            throw new IllegalArgumentException("lockAtLeastFor (" + lockAtLeastFor + ") must not be longer than"
                    + " lockAtMostFor (" + lockAtMostFor + ") (lock '" + name + "')");
        }
    }

    /** Milliseconds, rounded up (a lock is never shorter than asked), saturating at {@link Long#MAX_VALUE}. */
    static long millis(Duration duration) {
        try {
            long millis = duration.toMillis();
            return duration.minusMillis(millis).isZero() ? millis : Math.addExact(millis, 1);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }
}
