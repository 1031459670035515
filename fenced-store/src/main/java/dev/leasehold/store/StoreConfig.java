package dev.leasehold.store;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How the fenced store names its tables and which SQL dialect it speaks.
 *
 * @param tablePrefix prefixed to every table name; lower-case letters, digits and underscores, starting with a
 *                    letter, at most 30 characters (checked: nothing can be injected through it)
 * @param database    the dialect to speak, or {@code null} to detect it from the connection's metadata
 */
public record StoreConfig(String tablePrefix, Database database) {

    public static final String DEFAULT_PREFIX = "leasehold_";
    private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9_]{0,29}");

    public StoreConfig {
        if (tablePrefix == null || !PREFIX.matcher(tablePrefix).matches()) {
            throw new IllegalArgumentException("tablePrefix must match " + PREFIX.pattern()
                    + " (lower-case letters, digits, underscores; a letter first; at most 30 characters), was "
                    + (tablePrefix == null ? "null" : "'" + tablePrefix + "'"));
        }
    }

    /** Tables named {@code leasehold_*}, the dialect detected. */
    public static StoreConfig defaults() {
        return new StoreConfig(DEFAULT_PREFIX, null);
    }

    public StoreConfig withTablePrefix(String prefix) {
        return new StoreConfig(prefix, database);
    }

    public StoreConfig withDatabase(Database database) {
        if (database == null) {
            throw new IllegalArgumentException("database must not be null; use defaults() to detect it");
        }
        return new StoreConfig(tablePrefix, database);
    }

    public Optional<Database> forcedDatabase() {
        return Optional.ofNullable(database);
    }
}
