package dev.leasehold.recipes;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A recipe's own thread: tasks one at a time, in order, and no thread at all while idle (the thread ends after
 * {@link #KEEP_ALIVE} without work; the next task starts a new one). So a thousand idle latches hold no thread.
 *
 * <p>{@link #runHereIfIdle} lets a caller run a task on its own thread when nothing is queued or running: the tasks
 * still run one at a time and in order, without waking a thread (close() uses it for its last task).
 *
 * <p>Thread-safety: thread-safe; tasks run one at a time, in submission order.
 */
final class RecipeThread {

    /** How long the thread outlives its last task: long enough that a burst of events reuses it. */
    static final Duration KEEP_ALIVE = Duration.ofSeconds(2);

    private static final Logger log = LoggerFactory.getLogger(RecipeThread.class);

    private final ThreadPoolExecutor pool;
    private final Queue<Runnable> queue = new ArrayDeque<>();
    /** A thread (ours or a caller's) is running tasks; guarded by this. */
    private boolean running;

    private boolean shutdown;
    private volatile Thread runner;

    RecipeThread(String name) {
        this.pool = new ThreadPoolExecutor(
                1,
                1,
                KEEP_ALIVE.toMillis(),
                TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(),
                ElectionNodes.namedDaemon(name));
        this.pool.allowCoreThreadTimeOut(true);
    }

    /** Starts the thread ahead of the first task (it ends after {@link #KEEP_ALIVE} if no task comes). */
    void prestart() {
        pool.prestartCoreThread();
    }

    /** Queues {@code task}; after {@link #shutdown()} it is dropped (the recipe is closed). Never blocks. */
    void execute(Runnable task) {
        synchronized (this) {
            if (shutdown) {
                return;
            }
            queue.add(task);
            if (running) {
                return;
            }
            running = true;
        }
        startDraining();
    }

    /**
     * Runs {@code task} on the calling thread if nothing is queued or running, and returns {@code true}; else does
     * nothing and returns {@code false}. Tasks queued meanwhile run after it, on the recipe's thread.
     */
    boolean runHereIfIdle(Runnable task) {
        synchronized (this) {
            if (running || !queue.isEmpty()) {
                return false;
            }
            running = true;
        }
        runner = Thread.currentThread();
        try {
            task.run();
        } finally {
            runner = null;
            finishTurn();
        }
        return true;
    }

    boolean isCurrentThread() {
        return Thread.currentThread() == runner;
    }

    /** Queued tasks still run; new ones are dropped. */
    synchronized void shutdown() {
        shutdown = true;
        notifyAll();
    }

    /** @return {@code true} if every queued task ran within {@code wait} */
    boolean awaitTermination(Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        synchronized (this) {
            try {
                while (running || !queue.isEmpty()) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return false;
                    }
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true; // the pool's thread ends by itself when idle: shutting the pool down here costs a wake-up
    }

    private void startDraining() {
        try {
            pool.execute(this::drain);
        } catch (RejectedExecutionException e) {
            synchronized (this) {
                running = false;
                queue.clear();
                notifyAll();
            }
        }
    }

    /**
     * Runs queued tasks until none is left. A task that throws, an {@code Error} included (a listener's {@code
     * StackOverflowError}, say), is logged and the next task runs: a thread that died here with {@code running} set
     * would leave every later task queued for ever (no grant, no loss told, close() waiting its whole wait).
     */
    private void drain() {
        runner = Thread.currentThread();
        boolean idle = false;
        try {
            while (true) {
                Runnable task;
                synchronized (this) {
                    task = queue.poll();
                    if (task == null) {
                        running = false;
                        notifyAll();
                        idle = true;
                        return;
                    }
                }
                runLogged(task);
            }
        } finally {
            runner = null;
            if (!idle) {
                startDraining(); // something escaped even the logging (out of memory, say): another thread goes on
            }
        }
    }

    private static void runLogged(Runnable task) {
        try {
            task.run();
        } catch (Throwable e) {
            try {
                log.error(
                        "a task on {} threw; the recipe carries on",
                        Thread.currentThread().getName(),
                        e);
            } catch (Throwable ignored) {
                // logging failed too (out of memory, say): the recipe still carries on
            }
        }
    }

    /** After a task run in place: hand what was queued meanwhile to the recipe's thread. */
    private void finishTurn() {
        synchronized (this) {
            if (queue.isEmpty()) {
                running = false;
                notifyAll();
                return;
            }
        }
        startDraining();
    }
}
