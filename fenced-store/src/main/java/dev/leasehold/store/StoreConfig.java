package dev.leasehold.store;

import java.time.Duration;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How the fenced store names its tables, which SQL dialect it speaks and how long its transactions wait for a lock.
 *
 * <p>Immutable and thread-safe; every wither returns a new, validated instance.
 *
 * @param tablePrefix prefixed to every table name; lower-case letters, digits and underscores, starting with a
 *                    letter, at most 30 characters (checked: nothing can be injected through it)
 * @param database    the dialect to speak, or {@code null} to detect it from the connection's metadata
 * @param lockTimeout how long any statement of the store's own transactions may wait for a lock another transaction
 *                    holds (a paused old leader inside its transaction, say); then it fails with a
 *                    {@link StoreException} that says so and is {@link StoreException#retryable() retryable}.
 *                    Applied per transaction ({@code SET LOCAL lock_timeout} on PostgreSQL, the session's
 *                    {@code LOCK_TIMEOUT} on H2, set and restored). Whole milliseconds, from 1 ms to 1 hour;
 *                    {@link #DEFAULT_LOCK_TIMEOUT} unless set
 */
public record StoreConfig(String tablePrefix, Database database, Duration lockTimeout) {

    public static final String DEFAULT_PREFIX = "leasehold_";
    /** Long enough for any healthy transaction of the store, short enough that a stuck one is noticed. */
    public static final Duration DEFAULT_LOCK_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration MAX_LOCK_TIMEOUT = Duration.ofHours(1);
    private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9_]{0,29}");

    public StoreConfig {
        if (tablePrefix == null || !PREFIX.matcher(tablePrefix).matches()) {
            throw new IllegalArgumentException("tablePrefix must match " + PREFIX.pattern()
                    + " (lower-case letters, digits, underscores; a letter first; at most 30 characters), was "
                    + (tablePrefix == null ? "null" : "'" + tablePrefix + "'"));
        }
        if (lockTimeout == null || lockTimeout.compareTo(Duration.ofMillis(1)) < 0
                || lockTimeout.compareTo(MAX_LOCK_TIMEOUT) > 0 || lockTimeout.toNanos() % 1_000_000 != 0) {
            throw new IllegalArgumentException("lockTimeout must be whole milliseconds from 1 ms to "
                    + MAX_LOCK_TIMEOUT + ", was " + lockTimeout);
        }
    }

    /** The table prefix and dialect given, {@link #DEFAULT_LOCK_TIMEOUT} for the lock timeout. */
    public StoreConfig(String tablePrefix, Database database) {
        this(tablePrefix, database, DEFAULT_LOCK_TIMEOUT);
    }

    /** Tables named {@code leasehold_*}, the dialect detected, a lock timeout of {@link #DEFAULT_LOCK_TIMEOUT}. */
    public static StoreConfig defaults() {
        return new StoreConfig(DEFAULT_PREFIX, null, DEFAULT_LOCK_TIMEOUT);
    }

    public StoreConfig withTablePrefix(String prefix) {
        return new StoreConfig(prefix, database, lockTimeout);
    }

    public StoreConfig withDatabase(Database database) {
        if (database == null) {
            throw new IllegalArgumentException("database must not be null; use defaults() to detect it");
        }
        return new StoreConfig(tablePrefix, database, lockTimeout);
    }

    /** See {@link #lockTimeout()}. */
    public StoreConfig withLockTimeout(Duration lockTimeout) {
        return new StoreConfig(tablePrefix, database, lockTimeout);
    }

    public Optional<Database> forcedDatabase() {
        return Optional.ofNullable(database);
    }
}
