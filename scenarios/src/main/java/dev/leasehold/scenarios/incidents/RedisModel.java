package dev.leasehold.scenarios.incidents;

import java.util.HashMap;
import java.util.Map;

/**
 * An in-process model of two Redis commands, with their exact semantics, for replaying incident 1:
 * {@code SET key value NX PX ttl} (set only if absent or expired; the key expires by itself after ttl) and
 * {@code DEL key} (deletes whatever is there: no owner check). Time is the JVM's monotonic clock.
 */
public final class RedisModel {

    private record Entry(String value, long expiresAtNanos) {}

    private final Map<String, Entry> data = new HashMap<>();

    /** {@code SET key value NX PX ttlMillis}: true ("OK") if the key was absent or expired. */
    public synchronized boolean setNxPx(String key, String value, long ttlMillis) {
        if (get(key) != null) {
            return false;
        }
        data.put(key, new Entry(value, System.nanoTime() + ttlMillis * 1_000_000));
        return true;
    }

    /** {@code GET key}: the value, or null if absent or expired. */
    public synchronized String get(String key) {
        Entry entry = data.get(key);
        if (entry == null || System.nanoTime() >= entry.expiresAtNanos()) {
            data.remove(key);
            return null;
        }
        return entry.value();
    }

    /** Renews the key's TTL if {@code value} holds it (a leader's heartbeat); false if it expired or is another's. */
    public synchronized boolean renewIfHeld(String key, String value, long ttlMillis) {
        if (!value.equals(get(key))) {
            return false;
        }
        data.put(key, new Entry(value, System.nanoTime() + ttlMillis * 1_000_000));
        return true;
    }

    /** {@code DEL key}: removes the key whoever set it; returns the value it removed (null if none). */
    public synchronized String del(String key) {
        String value = get(key);
        data.remove(key);
        return value;
    }
}
