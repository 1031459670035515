package dev.leasehold.recipes;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listener calls handed to users' executors, counted so that {@code close()} can wait for them (bounded) before it
 * releases the node.
 *
 * <p>Thread-safety: thread-safe.
 */
final class ListenerCalls {

    private static final Logger log = LoggerFactory.getLogger(ListenerCalls.class);

    private int running;
    /** Set on a thread while it runs one of our calls: close() from there must not wait for itself. */
    private final ThreadLocal<Boolean> calling = new ThreadLocal<>();

    /** @return {@code false} if the executor rejected the call (then it is not counted) */
    boolean submit(Executor executor, Runnable call) {
        synchronized (this) {
            running++;
        }
        try {
            executor.execute(() -> {
                calling.set(Boolean.TRUE);
                try {
                    call.run();
                } finally {
                    calling.remove();
                    done();
                }
            });
            return true;
        } catch (RejectedExecutionException e) {
            done();
            return false;
        }
    }

    /** {@code true} on a user's executor thread while it runs one of our listener calls. */
    boolean isCallingThread() {
        return calling.get() != null;
    }

    private synchronized void done() {
        running--;
        notifyAll();
    }

    /** Waits up to {@code wait} until no call is queued or running; logs if some still are. */
    synchronized void awaitIdle(Duration wait, String participantId) {
        long deadline = System.nanoTime() + wait.toNanos();
        try {
            while (running > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    log.warn(
                            "[{}] {} listener call(s) on users' executors still running after {} ms; releasing the"
                                    + " node anyway",
                            participantId,
                            running,
                            wait.toMillis());
                    return;
                }
                java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
