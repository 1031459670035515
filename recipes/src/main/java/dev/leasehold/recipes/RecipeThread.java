package dev.leasehold.recipes;

import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A recipe's own thread: one at a time, tasks in order, and no thread at all while idle (it ends after {@link
 * #KEEP_ALIVE} without work and a new one starts with the next task). So a thousand idle latches hold no thread.
 *
 * <p>Thread-safety: thread-safe; tasks run one at a time, in submission order.
 */
final class RecipeThread {

    /** How long the thread outlives its last task: long enough that a burst of events reuses it. */
    static final Duration KEEP_ALIVE = Duration.ofSeconds(2);

    private final ThreadPoolExecutor executor;
    private volatile Thread current;

    RecipeThread(String name) {
        this.executor = new ThreadPoolExecutor(1, 1, KEEP_ALIVE.toMillis(), TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(), runnable -> {
                    Thread thread = new Thread(() -> {
                        current = Thread.currentThread();
                        runnable.run();
                    }, name);
                    thread.setDaemon(true);
                    return thread;
                });
        this.executor.allowCoreThreadTimeOut(true);
    }

    /** Queues {@code task}; after {@link #shutdown()} it is dropped (the recipe is closed). Never blocks. */
    void execute(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            // closed: nothing more to do for this recipe
        }
    }

    boolean isCurrentThread() {
        return Thread.currentThread() == current;
    }

    /** Queued tasks still run; new ones are dropped. */
    void shutdown() {
        executor.shutdown();
    }

    /** @return {@code true} if every queued task ran within {@code wait} */
    boolean awaitTermination(Duration wait) {
        try {
            return executor.awaitTermination(wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
