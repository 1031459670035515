package dev.leasehold.recipes;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The progress deadlines of a {@link FencedPartitions} member: one {@link ProgressWatch} per partition it holds (made
 * at its first grant, kept for the next ones), each armed while the partition is held. Package-private: copied with
 * the recipe.
 *
 * <p>{@link #progress(int)} is an array read and one volatile write: no lock, no I/O. A stall is told once per grant,
 * on the watches' shared timer thread, to a {@link Stalled} that must not block.
 *
 * <p>Thread-safety: thread-safe.
 */
final class PartitionProgress {

    /** Told that a partition's grant made no progress within the deadline. Must not block. */
    interface Stalled {
        /**
         * @param partition the partition
         * @param token     its grant's token
         * @param idle      how long its work went without calling {@code progress(partition)}
         */
        void stalled(int partition, FencingToken token, Duration idle);
    }

    private final AtomicReferenceArray<ProgressWatch> watches;
    /** The token each watch is armed for; {@code null}: not armed. */
    private final AtomicReferenceArray<FencingToken> armed;

    private final Stalled stalled;
    private volatile Duration deadline;

    PartitionProgress(int partitionCount, Stalled stalled) {
        this.watches = new AtomicReferenceArray<>(partitionCount);
        this.armed = new AtomicReferenceArray<>(partitionCount);
        this.stalled = stalled;
    }

    /** Sets the deadline (validated here) for the grants that begin from now on. */
    void deadline(Duration deadline) {
        this.deadline = ProgressWatch.requireDeadline(deadline);
    }

    Optional<Duration> deadline() {
        return Optional.ofNullable(deadline);
    }

    void progress(int partition) {
        ProgressWatch watch = watches.get(partition);
        if (watch != null) {
            watch.progress();
        }
    }

    Optional<Duration> sinceProgress(int partition) {
        ProgressWatch watch = watches.get(partition);
        return watch == null ? Optional.empty() : watch.sinceProgress();
    }

    /** A grant of {@code partition} began: its clock starts now; armed if a deadline is set. */
    void leading(int partition, FencingToken token) {
        ProgressWatch watch = watches.get(partition);
        if (watch == null) {
            watch = new ProgressWatch((t, idle) -> stalled.stalled(partition, t, idle));
            Duration current = deadline;
            if (current != null) {
                watch.deadline(current);
            }
            watches.set(partition, watch);
        }
        armed.set(partition, token);
        watch.leading(token);
    }

    /** The grant of {@code partition} that carried {@code token} ended: disarmed, unless a newer grant armed it. */
    void notLeading(int partition, FencingToken token) {
        ProgressWatch watch = watches.get(partition);
        if (watch != null && armed.compareAndSet(partition, token, null)) {
            watch.notLeading();
        }
    }
}
