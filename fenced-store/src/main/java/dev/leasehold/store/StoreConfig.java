package dev.leasehold.store;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How the fenced store names its tables, which SQL dialect it speaks, and the bounds of its batch and retention
 * operations. Immutable and thread-safe; every wither returns a new, validated config.
 *
 * @param tablePrefix prefixed to every table name; lower-case letters, digits and underscores, starting with a
 *                    letter, at most 30 characters (checked: nothing can be injected through it)
 * @param database    the dialect to speak, or {@code null} to detect it from the connection's metadata
 * @param maxAttempts how many claims a batch gets: once its attempt number {@code maxAttempts} fails (or its lease
 *                    expires), it is {@code failed} and never claimed again; 1 to 1,000, default 5
 * @param purgeChunk  how many rows one statement of a purge deletes ({@link BatchClaims#purgeFinished},
 *                    {@link SlotRuns#purge}), each in its own short transaction; 1 to 100,000, default 1,000
 * @param sweepLimit  how many expired slots one {@link SlotRuns#sweep} takes over at most; 1 to 100,000,
 *                    default 100
 */
public record StoreConfig(String tablePrefix, Database database, int maxAttempts, int purgeChunk, int sweepLimit) {

    public static final String DEFAULT_PREFIX = "leasehold_";
    public static final int DEFAULT_MAX_ATTEMPTS = 5;
    public static final int DEFAULT_PURGE_CHUNK = 1_000;
    public static final int DEFAULT_SWEEP_LIMIT = 100;
    private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9_]{0,29}");

    public StoreConfig {
        if (tablePrefix == null || !PREFIX.matcher(tablePrefix).matches()) {
            throw new IllegalArgumentException("tablePrefix must match " + PREFIX.pattern()
                    + " (lower-case letters, digits, underscores; a letter first; at most 30 characters), was "
                    + (tablePrefix == null ? "null" : "'" + tablePrefix + "'"));
        }
        within(maxAttempts, 1, 1_000, "maxAttempts");
        within(purgeChunk, 1, 100_000, "purgeChunk");
        within(sweepLimit, 1, 100_000, "sweepLimit");
    }

    /** Tables named {@code leasehold_*}, the dialect detected, 5 attempts, chunks of 1,000, sweeps of 100. */
    public static StoreConfig defaults() {
        return new StoreConfig(DEFAULT_PREFIX, null, DEFAULT_MAX_ATTEMPTS, DEFAULT_PURGE_CHUNK, DEFAULT_SWEEP_LIMIT);
    }

    public StoreConfig withTablePrefix(String prefix) {
        return new StoreConfig(prefix, database, maxAttempts, purgeChunk, sweepLimit);
    }

    public StoreConfig withDatabase(Database database) {
        if (database == null) {
            throw new IllegalArgumentException("database must not be null; use defaults() to detect it");
        }
        return new StoreConfig(tablePrefix, database, maxAttempts, purgeChunk, sweepLimit);
    }

    public StoreConfig withMaxAttempts(int maxAttempts) {
        return new StoreConfig(tablePrefix, database, maxAttempts, purgeChunk, sweepLimit);
    }

    public StoreConfig withPurgeChunk(int purgeChunk) {
        return new StoreConfig(tablePrefix, database, maxAttempts, purgeChunk, sweepLimit);
    }

    public StoreConfig withSweepLimit(int sweepLimit) {
        return new StoreConfig(tablePrefix, database, maxAttempts, purgeChunk, sweepLimit);
    }

    public Optional<Database> forcedDatabase() {
        return Optional.ofNullable(database);
    }

    private static void within(int value, int min, int max, String name) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", was " + value);
        }
    }
}
