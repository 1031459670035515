package dev.leasehold.recipes;

/**
 * Told when a {@link FencedLeaderLatch} gains or loses leadership.
 *
 * <p>Callbacks never run on a ZooKeeper or Curator thread, nor under the recipe's lock. They run on the recipe's
 * own thread, or on the executor given to {@link FencedLeaderLatch#addListener(FencedLeaderListener,
 * java.util.concurrent.Executor)}. A callback that throws is logged and does not break the recipe.
 *
 * <p>IMPORTANT: by the time a callback runs, leadership may already have changed again. Never treat
 * {@code leadershipAcquired} as permission to write without the token: send {@code token} with every write and
 * let the resource check it.
 */
public interface FencedLeaderListener {

    /** This instance now leads, with {@code token}. Fence the resource first, then act. */
    void leadershipAcquired(FencingToken token);

    /**
     * The grant that carried {@code token} is over (lost connection, lost session, lost node, or close).
     * Stop all work done under it at once.
     */
    void leadershipLost(FencingToken token);
}
