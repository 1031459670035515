package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Every listener of a member is told, in order, even when one before it throws; the first throw reaches the caller. */
class PartitionListenersTest {

    private static final FencingToken TOKEN = new FencingToken(7, "/g/partitions/0/n", "m");

    /** Records what it is told; throws {@code thrown} first if set. */
    private static final class Told implements FencedPartitionListener {
        final List<String> calls = new ArrayList<>();
        final RuntimeException runtime;
        final Error error;

        Told(RuntimeException runtime, Error error) {
            this.runtime = runtime;
            this.error = error;
        }

        private void record(String call) {
            calls.add(call);
            if (runtime != null) {
                throw runtime;
            }
            if (error != null) {
                throw error;
            }
        }

        @Override
        public void acquired(int partition, FencingToken token) {
            record("acquired " + partition);
        }

        @Override
        public void lost(int partition, FencingToken token, LossCause cause) {
            record("lost " + partition + " " + cause);
        }

        @Override
        public void rebalanced(int members, SortedSet<Integer> target) {
            record("rebalanced " + members + " " + target);
        }
    }

    @Test
    void aListenerThatThrowsDoesNotKeepTheNextFromBeingToldAndItsThrowReachesTheRecipe() {
        Told first = new Told(new IllegalStateException("first"), null);
        Told second = new Told(null, new AssertionError("second"));
        Told third = new Told(null, null);
        PartitionListeners listeners = new PartitionListeners("m", first);
        listeners.add(second);
        listeners.add(third);

        assertThatThrownBy(() -> listeners.acquired(0, TOKEN)).hasMessage("first");
        assertThatThrownBy(() -> listeners.lost(0, TOKEN, LossCause.REBALANCED)).hasMessage("first");
        assertThatThrownBy(() -> listeners.rebalanced(2, new TreeSet<>(List.of(0, 1))))
                .hasMessage("first");
        for (Told told : List.of(first, second, third)) {
            assertThat(told.calls).containsExactly("acquired 0", "lost 0 REBALANCED", "rebalanced 2 [0, 1]");
        }
    }

    @Test
    void anErrorOfTheOnlyListenerThatThrowsReachesTheRecipeAsItIs() {
        PartitionListeners listeners = new PartitionListeners("m", new Told(null, new AssertionError("only")));
        assertThatThrownBy(() -> listeners.acquired(0, TOKEN))
                .isInstanceOf(AssertionError.class)
                .hasMessage("only");
    }
}
