package dev.leasehold.micrometer;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One tag whose values come from the application (resource names, job names): the first {@code limit} distinct
 * values are tagged as they are, every later one as {@value #OTHER}, with one WARN. A registry keeps every series it
 * was given, so an unbounded tag (a resource per customer, say) would grow it without end.
 *
 * <p>Thread-safe.
 */
final class BoundedTag {
    /** The value every name past the limit is counted under. */
    static final String OTHER = "other";

    private static final Logger log = LoggerFactory.getLogger(BoundedTag.class);

    private final String key;
    private final int limit;
    private final Set<String> values = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean warned = new AtomicBoolean();

    BoundedTag(String key, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException(
                    "the limit of distinct " + key + " tags must be at least 1, was " + limit);
        }
        this.key = key;
        this.limit = limit;
    }

    /**
     * @param value the application's name
     * @return the name, or {@value #OTHER} once {@code limit} other names were tagged
     */
    String valueOf(String value) {
        if (values.contains(value)) {
            return value;
        }
        synchronized (values) { // the size check and the add are one step, so the limit is never passed
            if (values.size() < limit) {
                values.add(value);
                return value;
            }
        }
        if (warned.compareAndSet(false, true)) {
            log.warn(
                    "more than {} distinct {} names reached the store's meters: the rest are counted under {}={}",
                    limit,
                    key,
                    key,
                    OTHER);
        }
        return OTHER;
    }
}
