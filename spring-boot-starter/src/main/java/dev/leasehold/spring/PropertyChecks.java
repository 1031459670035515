package dev.leasehold.spring;

import java.time.Duration;

/** The range check the properties records share. Thread-safety: stateless. */
final class PropertyChecks {

    private PropertyChecks() {}

    static void between(Duration value, Duration min, Duration max, String name) {
        if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException(name + " must be from " + min + " to " + max + ", was " + value);
        }
    }
}
