package dev.leasehold.scenarios.chaos;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Where an in-JVM pause holds a participant's worker: between its leadership check and its next write, deaf to
 * interrupts, as a thread in a GC pause would be (at most 30 s). Thread-safe.
 */
final class Freezer {

    private volatile CountDownLatch frozen;

    /** Workers that reach {@link #holdIfFrozen()} from now on wait there. */
    void freeze() {
        frozen = new CountDownLatch(1);
    }

    /** Lets every held worker go on. */
    void thaw() {
        CountDownLatch hold = frozen;
        frozen = null;
        if (hold != null) {
            hold.countDown();
        }
    }

    /** A frozen worker waits here until thawed. */
    void holdIfFrozen() {
        CountDownLatch hold = frozen;
        if (hold == null) {
            return;
        }
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (hold.getCount() > 0 && System.nanoTime() < deadline) {
            try {
                hold.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
