package dev.leasehold.recipes;

import java.util.List;
import java.util.SortedSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners of one {@link FencedPartitions} member: the one given to the constructor first, then those added (for
 * meters, say), each told in turn on the recipe's thread; one that throws is logged and the next is still told.
 * Package-private: copied with the recipe.
 *
 * <p>Thread-safety: listeners may be added from any thread; the calls come from the recipe's thread only.
 */
final class PartitionListeners implements FencedPartitionListener {

    private static final Logger log = LoggerFactory.getLogger(FencedPartitions.class);

    private final String memberId;
    private final List<FencedPartitionListener> listeners = new CopyOnWriteArrayList<>();

    PartitionListeners(String memberId, FencedPartitionListener first) {
        this.memberId = memberId;
        listeners.add(first);
    }

    void add(FencedPartitionListener listener) {
        listeners.add(listener);
    }

    @Override
    public void acquired(int partition, FencingToken token) {
        each(l -> l.acquired(partition, token), "acquired " + partition);
    }

    @Override
    public void lost(int partition, FencingToken token, LossCause cause) {
        each(l -> l.lost(partition, token, cause), "lost " + partition);
    }

    @Override
    public void rebalanced(int members, SortedSet<Integer> target) {
        each(l -> l.rebalanced(members, target), "rebalanced");
    }

    private void each(Consumer<FencedPartitionListener> call, String what) {
        Throwable first = null;
        for (FencedPartitionListener listener : listeners) {
            try {
                call.accept(listener);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (RuntimeException | Error e) {
                if (first == null) {
                    first = e; // the caller logs it, with the partition's token
                } else {
                    log.error("[{}] a listener threw ({})", memberId, what, e);
                }
            }
        }
        if (first instanceof RuntimeException e) {
            throw e;
        }
        if (first != null) {
            throw (Error) first;
        }
    }
}
