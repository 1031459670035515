package dev.leasehold.store.internal;

import dev.leasehold.store.StoreListener;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the store's listener, catching and logging anything it throws so that a listener can never change what a
 * store call returns or throws. Thread-safe: stateless but for the listener, which must be thread-safe itself.
 */
public final class StoreEvents {

    private static final Logger log = LoggerFactory.getLogger(StoreEvents.class);

    private final StoreListener listener;

    public StoreEvents(StoreListener listener) {
        this.listener = Args.notNull(listener, "listener");
    }

    /** Calls {@code event} on the listener unless it is {@link StoreListener#NONE}; never throws. */
    public void tell(Consumer<StoreListener> event) {
        if (listener == StoreListener.NONE) {
            return;
        }
        try {
            event.accept(listener);
        } catch (VirtualMachineError e) {
            throw e; // out of memory, stack overflow: nothing to log safely
        } catch (RuntimeException | Error e) { // a listener must never break the store
            log.warn("store listener {} threw; ignored", listener, e);
        }
    }

    /**
     * Runs {@code body} and tells the listener what {@code told} makes of its result; if it throws, tells
     * {@code failed} and rethrows, except for an {@link IllegalArgumentException} (an argument rejected at the door
     * decided nothing).
     */
    public <T> T after(
            Supplier<T> body, Function<? super T, Consumer<StoreListener>> told, Consumer<StoreListener> failed) {
        T result;
        try {
            result = body.get();
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (Throwable t) {
            tell(failed);
            throw t;
        }
        tell(told.apply(result));
        return result;
    }
}
