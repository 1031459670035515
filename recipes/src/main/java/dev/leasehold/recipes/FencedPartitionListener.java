package dev.leasehold.recipes;

import java.util.SortedSet;

/**
 * Told when a {@link FencedPartitions} member gains or loses a partition.
 *
 * <p>Callbacks never run on a ZooKeeper or Curator thread, nor under a lock of the recipe: they run on the recipe's
 * own thread, one at a time and in order. A slow callback delays the recipe's next step (and a slow {@code lost}
 * delays the hand-over of its partition, by design). A callback that throws is logged and does not break the
 * recipe.
 *
 * <p>Per grant of a partition, a listener is told {@code acquired(p, token)} and later {@code lost(p, token, cause)}
 * with the same token: never lost first, never an acquired without its lost.
 *
 * <p>IMPORTANT: the partition is handed to another member only after {@code lost(p, token, REBALANCED)}, {@code
 * lost(p, token, CLOSED)} or {@code lost(p, token, STALLED)} returned, so stop the partition's work <em>before</em>
 * returning (on {@code STALLED} the work is stuck: interrupt it and return without waiting for it; the fence refuses
 * its late writes). After a lost session
 * ({@code LOST}) or a suspended connection ({@code SUSPENDED}) the partition may already be held by another member:
 * only the resource's token check stops a late write. Send {@code token} with every write.
 *
 * <p>Thread-safety: called by one thread at a time per {@link FencedPartitions}.
 */
public interface FencedPartitionListener {

    /**
     * This member now holds {@code partition}, with {@code token}. Fence the partition's resource first, then act.
     *
     * @param partition the partition, from 0 to the partition count - 1
     * @param token     the grant's token: the czxid of this member's own node for the partition
     */
    void acquired(int partition, FencingToken token);

    /**
     * The grant of {@code partition} that carried {@code token} is over. Stop its work before returning: on {@code
     * REBALANCED} and {@code CLOSED} the partition moves only after this returns.
     *
     * @param partition the partition
     * @param token     the token of the grant that ended
     * @param cause     why it ended: {@code REBALANCED}, {@code CLOSED}, {@code SUSPENDED}, {@code LOST}, {@code
     *                  NODE_GONE} or {@code STALLED} (no {@code progress(partition)} within the progress deadline)
     */
    void lost(int partition, FencingToken token, LossCause cause);

    /**
     * The group's target changed (a member joined or left, or this member read the target for the first time): this
     * member should now hold {@code target}. Told before the partitions move, so the {@code lost} and {@code acquired}
     * calls of the move follow. A target, not ownership: see {@link FencedPartitions#currentAssignment()}. For meters
     * and logs; the default does nothing.
     *
     * @param members how many members the target spreads the partitions over
     * @param target  the partitions this member should hold, in order (a snapshot)
     */
    default void rebalanced(int members, SortedSet<Integer> target) {}
}
