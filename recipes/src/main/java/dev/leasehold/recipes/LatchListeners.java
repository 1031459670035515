package dev.leasehold.recipes;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A latch's listeners, and the rule they are told by: per grant, each listener hears nothing, or {@code
 * leadershipAcquired} and later {@code leadershipLost} with the same token. A grant remembers whom it told; a loss
 * tells exactly those. Calls run on the caller's thread (the recipe's own), or are handed to the listener's executor
 * and counted so that close() can wait for them.
 *
 * <p>Thread-safety: {@link #add}, {@link #remove} and {@link #lost} from any thread; {@link #tellAcquired} and
 * {@link #drainLosses} on the recipe's own thread only (one at a time, in order).
 */
final class LatchListeners {

    private static final Logger log = LoggerFactory.getLogger(LatchListeners.class);

    record Registration(FencedLeaderListener listener, Executor executor) {}

    private record Loss(FencingToken token, List<Registration> told, LossCause cause) {}

    private final String participantId;
    private final List<Registration> listeners = new CopyOnWriteArrayList<>();
    private final Queue<Loss> losses = new ConcurrentLinkedQueue<>();
    private final ListenerCalls executorCalls = new ListenerCalls();
    /** Told when a loss begins and when it returned: the node's delete waits for it. */
    private final LatchDeletes deletes;

    LatchListeners(String participantId, LatchDeletes deletes) {
        this.participantId = participantId;
        this.deletes = deletes;
    }

    void add(FencedLeaderListener listener, Executor executor) {
        listeners.add(new Registration(listener, executor));
    }

    void remove(FencedLeaderListener listener) {
        listeners.removeIf(r -> r.listener() == listener);
    }

    /** A list to record, for one grant, the listeners told of it. */
    static List<Registration> newTold() {
        return new CopyOnWriteArrayList<>();
    }

    /**
     * Tells each listener, in order, that {@code token} was granted, while {@code stillGranted} says so: once the grant
     * is withdrawn (a listener closed the latch, say), the rest never hear of it.
     */
    void tellAcquired(FencingToken token, List<Registration> told, BooleanSupplier stillGranted) {
        for (Registration registration : listeners) {
            if (!stillGranted.getAsBoolean()) {
                break;
            }
            told.add(registration);
            call(registration, l -> l.leadershipAcquired(token), token, () -> {});
        }
    }

    /** Any thread, never blocks: the grant of {@code token} is over; its listeners are told at the next drain. */
    void lost(FencingToken token, List<Registration> told, LossCause cause) {
        deletes.lossBegins();
        losses.add(new Loss(token, told, cause));
    }

    /**
     * Tells each listener that was told of a grant that the grant is over. A loss has returned once every listener's
     * call returned, on this thread and on the listeners' executors; then {@link LatchDeletes} is told.
     */
    void drainLosses() {
        for (Loss loss = losses.poll(); loss != null; loss = losses.poll()) {
            FencingToken token = loss.token();
            LossCause cause = loss.cause();
            AtomicInteger running = new AtomicInteger(1); // this loop's share, given up after it
            Runnable returned = () -> {
                if (running.decrementAndGet() == 0) {
                    deletes.lossReturned();
                }
            };
            for (Registration registration : loss.told()) {
                if (registration.executor() != null) {
                    running.incrementAndGet();
                }
                call(registration, l -> l.leadershipLost(token, cause), token, returned);
            }
            returned.run();
        }
    }

    /** Waits (bounded) until no call handed to a listener's executor is queued or running. */
    void awaitExecutorCalls(Duration wait) {
        executorCalls.awaitIdle(wait, participantId);
    }

    /** {@code true} on a user's executor thread while it runs one of our calls. */
    boolean isCallingThread() {
        return executorCalls.isCallingThread();
    }

    /** Calls the listener here or on its executor; {@code returned} runs once an executor's call is over. */
    private void call(
            Registration registration, Consumer<FencedLeaderListener> call, FencingToken token, Runnable returned) {
        Runnable safeCall = () -> {
            try {
                call.accept(registration.listener());
            } catch (Throwable e) { // an Error too: the recipe's thread carries on with the next listener and grant
                log.error(
                        "[{}] listener {} threw for token {}",
                        participantId,
                        registration.listener(),
                        token.value(),
                        e);
            }
        };
        if (registration.executor() == null) {
            safeCall.run();
            return;
        }
        Runnable counted = () -> {
            try {
                safeCall.run();
            } finally {
                returned.run();
            }
        };
        if (!executorCalls.submit(registration.executor(), counted)) {
            log.warn("[{}] listener executor rejected a call for token {}", participantId, token.value());
            returned.run();
        }
    }
}
