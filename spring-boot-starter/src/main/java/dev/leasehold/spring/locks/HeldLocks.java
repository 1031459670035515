package dev.leasehold.spring.locks;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.OptionalLong;

/**
 * The {@link dev.leasehold.spring.FencedLock}s the calling thread holds, innermost last, for a fence check that is not
 * handed a token (ShedLock's {@code LockAssert} shape: a {@code ThreadLocal} deque, pushed when a hold is taken, popped
 * when it is released or lost, removed when empty). Not API but for {@link #tokenOf(String)}, which the starter's
 * transaction fence may use; see {@code docs/locks.md}.
 *
 * <p>Thread-safety: each thread sees only its own holds.
 */
public final class HeldLocks {

    private static final ThreadLocal<Deque<RegistryLock>> HELD = new ThreadLocal<>();

    private HeldLocks() {}

    /**
     * The token of the innermost lock of key {@code key} that the calling thread holds, in any registry.
     *
     * @param key a lock key, compared exactly (a fence's resource name when lock key and resource are one name)
     * @return the token, or empty if the thread holds no lock of that key
     * @throws IllegalStateException if the thread's innermost hold of that key was lost (its token must not be used)
     */
    public static OptionalLong tokenOf(String key) {
        Deque<RegistryLock> held = HELD.get();
        if (held == null || key == null) {
            return OptionalLong.empty();
        }
        for (Iterator<RegistryLock> it = held.descendingIterator(); it.hasNext(); ) {
            RegistryLock lock = it.next();
            if (lock.key().equals(key)) {
                return OptionalLong.of(lock.token());
            }
        }
        return OptionalLong.empty();
    }

    static void push(RegistryLock lock) {
        Deque<RegistryLock> held = HELD.get();
        if (held == null) {
            held = new ArrayDeque<>();
            HELD.set(held);
        }
        held.addLast(lock);
    }

    static void pop(RegistryLock lock) {
        Deque<RegistryLock> held = HELD.get();
        if (held != null) {
            held.removeLastOccurrence(lock);
            if (held.isEmpty()) {
                HELD.remove();
            }
        }
    }
}
