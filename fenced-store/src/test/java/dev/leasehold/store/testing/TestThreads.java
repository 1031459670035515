package dev.leasehold.store.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Thread pools for one test, shut down (interrupting what still runs) after it: register it as a field with
 * {@code @RegisterExtension}. Thread-safe.
 */
public final class TestThreads implements AfterEachCallback {

    private final List<ExecutorService> pools = new CopyOnWriteArrayList<>();

    /** A pool of {@code n} threads, shut down after the test. */
    public ExecutorService fixed(int n) {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        pools.add(pool);
        return pool;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        pools.forEach(ExecutorService::shutdownNow);
        pools.clear();
    }
}
