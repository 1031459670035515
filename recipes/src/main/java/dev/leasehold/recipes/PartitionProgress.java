package dev.leasehold.recipes;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The progress deadlines of a {@link FencedPartitions} member: one {@link ProgressWatch} per partition it holds (made
 * at its first grant, kept for the next ones), each armed while the partition is held. Package-private: copied with
 * the recipe.
 *
 * <p>{@link #progress(int)} is an array read and one volatile write: no lock, no I/O. A stall is handled on the
 * watches' shared timer thread without blocking and without calling anyone's code: the partition's token is withdrawn
 * (its loss queued for the listener, cause {@link LossCause#STALLED}), the partition noted for the recipe's thread to
 * hand off, and a step queued.
 *
 * <p>Thread-safety: thread-safe.
 */
final class PartitionProgress {

    private static final Logger log = LoggerFactory.getLogger(FencedPartitions.class);

    private final AtomicReferenceArray<ProgressWatch> watches;
    /** The token each watch is armed for; {@code null}: not armed. */
    private final AtomicReferenceArray<FencingToken> armed;

    private final String memberId;
    private final PartitionGrants grants;
    private final Runnable queueStep;
    /** Partitions withdrawn for want of progress, not yet handed off. */
    private final Set<Integer> stalled = ConcurrentHashMap.newKeySet();

    private volatile Duration deadline;

    PartitionProgress(int partitionCount, String memberId, PartitionGrants grants, Runnable queueStep) {
        this.watches = new AtomicReferenceArray<>(partitionCount);
        this.armed = new AtomicReferenceArray<>(partitionCount);
        this.memberId = memberId;
        this.grants = grants;
        this.queueStep = queueStep;
    }

    /** Sets the deadline (validated here) for the grants that begin from now on. */
    void deadline(Duration deadline) {
        this.deadline = ProgressWatch.requireDeadline(deadline);
    }

    Optional<Duration> deadline() {
        return Optional.ofNullable(deadline);
    }

    /** @throws IllegalArgumentException if {@code partition} is out of range */
    void progress(int partition) {
        ProgressWatch watch = watches.get(requirePartition(partition));
        if (watch != null) {
            watch.progress();
        }
    }

    /** @throws IllegalArgumentException if {@code partition} is out of range */
    Optional<Duration> sinceProgress(int partition) {
        ProgressWatch watch = watches.get(requirePartition(partition));
        return watch == null ? Optional.empty() : watch.sinceProgress();
    }

    /** A grant of {@code partition} began: its clock starts now; armed if a deadline is set. */
    void leading(int partition, FencingToken token) {
        ProgressWatch watch = watches.get(partition);
        if (watch == null) {
            watch = new ProgressWatch((t, idle) -> stalled(partition, t, idle));
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

    /** The partitions given up for want of progress and not yet handed off, in order. */
    SortedSet<Integer> stalled() {
        return new TreeSet<>(stalled);
    }

    /** {@code partition} was handed off (or is to be joined again): off the list. */
    void handedOff(int partition) {
        stalled.remove(partition);
    }

    /** On the timer thread; never blocks. The grant of {@code token} made no progress: withdraw it alone. */
    private void stalled(int partition, FencingToken token, Duration idle) {
        if (grants.stall(partition, token)) {
            log.warn(
                    "[{}] partition {} ({}): no progress() for {} ms (deadline {} ms); giving it up",
                    memberId,
                    partition,
                    token,
                    idle.toMillis(),
                    deadline().map(Duration::toMillis).orElse(0L));
            stalled.add(partition);
            queueStep.run();
        }
    }

    private int requirePartition(int partition) {
        if (partition < 0 || partition >= watches.length()) {
            throw new IllegalArgumentException(
                    "partition must be from 0 to " + (watches.length() - 1) + ", was " + partition);
        }
        return partition;
    }
}
