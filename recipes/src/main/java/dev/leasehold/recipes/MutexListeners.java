package dev.leasehold.recipes;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The loss listeners of a {@link FencedMutex}: each loss is handed from the thread that saw it (often a Curator
 * thread) to the mutex's own thread, which hands one call per listener to that listener's executor. So a listener
 * never runs on a ZooKeeper or Curator thread, even with a direct executor. Package-private: copied with the mutex.
 *
 * <p>Thread-safety: thread-safe; {@link #lost} never blocks.
 */
final class MutexListeners {

    /** The mutex's own category, so that its log lines read as one. */
    private static final Logger log = LoggerFactory.getLogger(FencedMutex.class);

    private record Registration(FencedLossListener listener, Executor executor) {}

    private final String participantId;
    private final RecipeThread events;
    private final ListenerCalls calls = new ListenerCalls();
    private final List<Registration> registrations = new CopyOnWriteArrayList<>();

    MutexListeners(String participantId) {
        this.participantId = participantId;
        this.events = new RecipeThread("leasehold-mutex-" + participantId);
    }

    void add(FencedLossListener listener, Executor executor) {
        registrations.add(new Registration(listener, executor));
    }

    /** Removes every registration of {@code listener} (compared by identity). */
    void remove(FencedLossListener listener) {
        registrations.removeIf(registration -> registration.listener() == listener);
    }

    /**
     * Any thread, never blocks: tells the listeners registered now that {@code token}'s hold ended. Those removed
     * later (a close) are still told of this loss.
     */
    void lost(FencingToken token, LossCause cause) {
        List<Registration> told = List.copyOf(registrations);
        if (told.isEmpty()) {
            return;
        }
        events.execute(() -> {
            for (Registration registration : told) {
                Runnable call = () -> {
                    try {
                        registration.listener().lost(token, cause);
                    } catch (Throwable e) { // an Error too: the other listeners are still told
                        log.error(
                                "[{}] loss listener {} threw for token {} ({})",
                                participantId,
                                registration.listener(),
                                token.value(),
                                cause,
                                e);
                    }
                };
                if (!calls.submit(registration.executor(), call)) {
                    log.warn(
                            "[{}] loss listener executor rejected the call for token {} ({})",
                            participantId,
                            token.value(),
                            cause);
                }
            }
        });
    }

    /** Drops every listener; losses already told still reach them. The mutex's thread ends once idle. */
    void close() {
        registrations.clear();
        events.shutdown();
    }
}
