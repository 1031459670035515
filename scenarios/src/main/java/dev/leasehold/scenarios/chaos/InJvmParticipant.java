package dev.leasehold.scenarios.chaos;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A participant in the campaign's JVM, whatever elects it (latch or selector, lease, partitions): its workers stop at
 * one {@link Freezer}. A pause freezes them after their leadership check and silences the participant ({@link
 * #silence()}: its ZooKeeper proxies, or its database connection for a lease); a held participant's workers are only
 * frozen, so it keeps its leadership.
 */
abstract class InJvmParticipant extends Participant {

    /** Where a pause or a hold stops the workers. */
    final Freezer freezer = new Freezer();

    InJvmParticipant(String id, boolean selector, Setting setting) throws IOException {
        super(id, selector, setting);
    }

    @Override
    void pause() {
        freezer.freeze();
        silence();
    }

    @Override
    void unpause() {
        resume();
        freezer.thaw();
    }

    @Override
    void holdWork() {
        freezer.freeze();
    }

    @Override
    void releaseWork() {
        freezer.thaw();
    }

    /** Waits for {@code workers} to end, at most 10 s in all (a worker frozen for good is left behind). */
    static void joinAll(List<Thread> workers) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (Thread worker : workers) {
            try {
                worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
