package dev.leasehold.examples.fencebench;

import dev.leasehold.store.FenceOutcome;
import dev.leasehold.store.StoreListener;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the fence checks of {@link Writes#RESOURCE} that passed and those of {@link Writes#PROBE} that were refused,
 * as the starter's gate reports them (a {@code StoreListener} bean): the proof that the fenced side went through the
 * check. One counter increment per check.
 */
public class PassedChecks implements StoreListener {

    private final LongAdder passed = new LongAdder();
    private final LongAdder refusedProbes = new LongAdder();

    @Override
    public void fenceWrite(String resource, long token, FenceOutcome outcome) {
        if (Writes.RESOURCE.equals(resource) && outcome == FenceOutcome.ACCEPTED) {
            passed.increment();
        } else if (Writes.PROBE.equals(resource) && outcome == FenceOutcome.STALE) {
            refusedProbes.increment();
        }
    }

    long passed() {
        return passed.sum();
    }

    long refusedProbes() {
        return refusedProbes.sum();
    }
}
