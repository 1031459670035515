package dev.leasehold.store.lease;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The election's event thread: listener calls, one at a time and in order, and the deadline checks (so a loss is
 * told after the acquired it ends, always). Nothing here runs under a lock, and the renewing thread never runs a
 * listener. A listener that throws (an Error too) is logged with the election, holder and token.
 *
 * <p>Thread-safety: thread-safe; the per-grant listener snapshot is confined to the event thread.
 */
final class LeaseEvents {

    private static final Logger log = LoggerFactory.getLogger(LeaseElection.class);

    private final String who;
    private final ScheduledThreadPoolExecutor thread;
    private final List<LeaseListener> listeners = new CopyOnWriteArrayList<>();
    /** The listeners told of the current grant: the ones to tell of its end. Event thread only. */
    private List<LeaseListener> told = List.of();

    private volatile Thread eventThread;

    LeaseEvents(String who, String threadName) {
        this.who = who;
        this.thread = LeaseThreads.single(threadName);
    }

    void add(LeaseListener listener) {
        listeners.add(listener);
    }

    void remove(LeaseListener listener) {
        listeners.remove(listener);
    }

    /** Queues {@code acquired(token)} for the listeners registered now (they alone hear this grant's loss). */
    void acquired(long token) {
        submit(() -> {
            told = List.copyOf(listeners);
            for (LeaseListener listener : told) {
                call(token, "acquired", () -> listener.acquired(token));
            }
        });
    }

    /** Queues {@code lost(token, cause)} for the listeners told of the grant, then runs {@code after}. */
    void lost(long token, LeaseLoss cause, Runnable after) {
        submit(() -> {
            List<LeaseListener> ending = told;
            told = List.of();
            for (LeaseListener listener : ending) {
                call(token, "lost(" + cause + ")", () -> listener.lost(token, cause));
            }
            after.run();
        });
    }

    /** Runs {@code task} on the event thread after {@code delayNanos}; dropped after shutdown. */
    void schedule(Runnable task, long delayNanos) {
        try {
            thread.schedule(() -> run(task), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // closed: nothing is left to check
        }
    }

    boolean isEventThread() {
        return Thread.currentThread() == eventThread;
    }

    /**
     * Queued calls still run, then {@code last}; delayed checks are dropped. If already shut down, {@code last} runs
     * at once, on the calling thread.
     */
    void shutdown(Runnable last) {
        afterQueued(last);
        thread.shutdown();
    }

    /** Runs {@code task} on the event thread after the calls queued now; at once, here, if shut down. */
    void afterQueued(Runnable task) {
        try {
            thread.execute(() -> run(task));
        } catch (RejectedExecutionException e) {
            task.run();
        }
    }

    private void submit(Runnable task) {
        try {
            thread.execute(() -> run(task));
        } catch (RejectedExecutionException e) {
            log.warn("[{}] an event came after the election was shut down and was dropped", who);
        }
    }

    private void run(Runnable task) {
        eventThread = Thread.currentThread();
        try {
            task.run();
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable t) {
            log.error("[{}] an event task threw", who, t);
        }
    }

    private void call(long token, String what, Runnable call) {
        try {
            call.run();
        } catch (Throwable t) { // an Error too: the other listeners and the release after a loss must still run
            log.warn("[{}] token {}: the listener's {} threw; the election goes on", who, token, what, t);
        }
    }
}
