package dev.leasehold.spring;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * What the instances of the sample did, in order, shared by the application contexts of one test; a test waits for
 * an entry instead of sleeping.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class Timeline {

    private final List<String> entries = new CopyOnWriteArrayList<>();
    private final BlockingQueue<String> unseen = new LinkedBlockingQueue<>();

    public void add(String entry) {
        entries.add(entry);
        unseen.add(entry);
    }

    /** Waits up to 20 s for an entry that starts with {@code prefix}; entries before it are passed over. */
    public String await(String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            String next = unseen.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (next == null) {
                throw new AssertionError("no entry starting with '" + prefix + "' within 20 s; timeline: " + entries);
            }
            if (next.startsWith(prefix)) {
                return next;
            }
        }
    }

    public List<String> entries() {
        return List.copyOf(entries);
    }
}
