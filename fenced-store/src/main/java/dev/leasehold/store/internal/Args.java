package dev.leasehold.store.internal;

import java.time.Duration;
import java.time.Instant;

/** Checks at the door: a clear IllegalArgumentException before anything touches the database. */
public final class Args {

    public static final int MAX_NAME = 200;
    /** Leases longer than this are surely a unit mistake. */
    public static final Duration MAX_LEASE = Duration.ofDays(7);

    private Args() {}

    public static <T> T notNull(T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        return value;
    }

    /**
     * A name (resource, job, holder, batch id, operator...): non-blank, at most {@link #MAX_NAME} characters, no
     * control characters. A name ends up in logs, in {@code inspect}'s output and in the fence's history: a line
     * break or a terminal escape in it could forge a line there.
     */
    public static String name(String value, String name) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " must be a non-blank string, was "
                    + (value == null ? "null" : "'" + printable(value) + "'"));
        }
        if (value.length() > MAX_NAME) {
            throw new IllegalArgumentException(
                    name + " must be at most " + MAX_NAME + " characters, was " + value.length());
        }
        noControlCharacters(value, name);
        return value;
    }

    /** Refuses a value with a control character (a line break, a tab, an escape), naming the field. */
    public static String noControlCharacters(String value, String name) {
        if (value.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException(
                    name + " must not contain control characters, was '" + printable(value) + "'");
        }
        return value;
    }

    /** The value with every control character shown as {@code ?}, fit for a message or a log line. */
    public static String printable(String value) {
        return value.replaceAll("\\p{Cntrl}", "?");
    }

    /** A fencing token as a leader offers it: positive, like the czxid it is ({@code FencingToken} refuses 0). */
    public static long token(long token, String name) {
        if (token <= 0) {
            throw new IllegalArgumentException(name + " must be positive, was " + token);
        }
        return token;
    }

    /** A lease in whole milliseconds, at least 1 ms and at most {@link #MAX_LEASE}. */
    public static long leaseMillis(Duration lease) {
        notNull(lease, "lease");
        if (lease.isNegative() || lease.isZero() || lease.compareTo(MAX_LEASE) > 0) {
            throw new IllegalArgumentException("lease must be positive and at most " + MAX_LEASE + ", was " + lease);
        }
        if (lease.toNanos() % 1_000_000 != 0) {
            throw new IllegalArgumentException("lease must be whole milliseconds, was " + lease);
        }
        return lease.toMillis();
    }

    /** A slot instant with millisecond precision (what every database stores exactly). */
    public static Instant slot(Instant slot, String name) {
        notNull(slot, name);
        if (slot.getNano() % 1_000_000 != 0) {
            throw new IllegalArgumentException(name + " must have millisecond precision, was " + slot);
        }
        return slot;
    }

    /** Retention ages are at most this long (longer is surely a unit mistake). */
    public static final Duration MAX_AGE = Duration.ofDays(36_500);

    /** An age for retention: zero or positive, whole milliseconds, at most {@link #MAX_AGE}. */
    public static Duration olderThan(Duration olderThan) {
        notNull(olderThan, "olderThan");
        if (olderThan.isNegative() || olderThan.compareTo(MAX_AGE) > 0) {
            throw new IllegalArgumentException(
                    "olderThan must be zero or positive and at most " + MAX_AGE + ", was " + olderThan);
        }
        if (olderThan.toNanos() % 1_000_000 != 0) {
            throw new IllegalArgumentException("olderThan must be whole milliseconds, was " + olderThan);
        }
        return olderThan;
    }
}
