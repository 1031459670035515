package dev.leasehold.micrometer;

/** Argument checks with messages that say what was wrong. Stateless, thread-safe. */
final class Checks {

    private Checks() {}

    static <T> T notNull(T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        return value;
    }

    static String tag(String value, String name) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(
                    name + " must be a non-blank tag value, was " + (value == null ? "null" : "'" + value + "'"));
        }
        return value;
    }
}
