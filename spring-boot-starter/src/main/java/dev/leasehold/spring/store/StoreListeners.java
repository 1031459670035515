package dev.leasehold.spring.store;

import dev.leasehold.store.ClaimOutcome;
import dev.leasehold.store.FenceOutcome;
import dev.leasehold.store.SlotOutcome;
import dev.leasehold.store.StoreListener;
import java.util.List;

/**
 * The application's {@link StoreListener} beans as the one listener a {@code StoreConfig} takes: none, the one, or
 * all of them in order. The store logs a listener that throws, so one that throws here skips the ones after it for
 * that event only.
 *
 * <p>Thread-safety: thread-safe if the listeners are, as the store requires.
 */
final class StoreListeners implements StoreListener {

    private final List<StoreListener> listeners;

    private StoreListeners(List<StoreListener> listeners) {
        this.listeners = listeners;
    }

    /** The listener that tells all of {@code listeners}: {@link StoreListener#NONE} for none. */
    static StoreListener of(List<StoreListener> listeners) {
        return switch (listeners.size()) {
            case 0 -> StoreListener.NONE;
            case 1 -> listeners.get(0);
            default -> new StoreListeners(List.copyOf(listeners));
        };
    }

    @Override
    public void fenceWrite(String resource, long token, FenceOutcome outcome) {
        listeners.forEach(listener -> listener.fenceWrite(resource, token, outcome));
    }

    @Override
    public void claims(ClaimOutcome outcome, int count) {
        listeners.forEach(listener -> listener.claims(outcome, count));
    }

    @Override
    public void slots(String job, SlotOutcome outcome, int count) {
        listeners.forEach(listener -> listener.slots(job, outcome, count));
    }
}
