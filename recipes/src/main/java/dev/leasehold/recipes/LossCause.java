package dev.leasehold.recipes;

/**
 * Why a grant of leadership ended, as told to {@link FencedLeaderListener#leadershipLost(FencingToken, LossCause)}
 * and {@link FencedPartitionListener#lost(int, FencingToken, LossCause)}.
 *
 * <p>The cause is the first reason the recipe observed; a loss may have several (a SUSPENDED that becomes LOST).
 *
 * <p>Thread-safety: an enum, immutable.
 */
public enum LossCause {
    /** The connection to ZooKeeper was suspended (under Curator's default error policy); the session may survive. */
    SUSPENDED,
    /** The session was lost (expired): the node is gone, or soon will be. */
    LOST,
    /** Curator no longer leads with the node this token came from (it was deleted or replaced). */
    NODE_GONE,
    /** The leadership was interrupted on request ({@code interruptLeadership()}) or the leader's work ended. */
    INTERRUPTED,
    /** The recipe was closed. */
    CLOSED,
    /** The partition was handed to another member by a rebalance ({@link FencedPartitions} only). */
    REBALANCED,

    /**
     * The leader's work made no {@code progress()} call within the recipe's progress deadline: the recipe gave
     * leadership up while its session and node were still alive, so that another participant leads.
     */
    STALLED
}
