package dev.leasehold.recipes;

/**
 * Told when a {@link FencedLeaderLatch} gains or loses leadership.
 *
 * <p>Callbacks never run on a ZooKeeper or Curator thread, nor under the recipe's lock. They run on the recipe's
 * own thread, or on the executor given to {@link FencedLeaderLatch#addListener(FencedLeaderListener,
 * java.util.concurrent.Executor)}; the one exception is {@code leadershipLost(token, CLOSED)}, which runs on the
 * thread that calls {@link FencedLeaderLatch#close()} when the recipe's thread is idle (one at a time and in order
 * all the same). A callback that throws is logged and does not break the recipe.
 *
 * <p>Per grant, a listener is told either nothing, or {@code leadershipAcquired} and later {@code leadershipLost}
 * with the same token: never lost first, never an acquired without its lost (a latch that is closed tells
 * {@code leadershipLost(token, CLOSED)}).
 *
 * <p>IMPORTANT: by the time a callback runs, leadership may already have changed again. Never treat
 * {@code leadershipAcquired} as permission to write without the token: send {@code token} with every write and
 * let the resource check it.
 *
 * <p>Thread-safety: implementations are called by one thread at a time per latch when they run on the recipe's own
 * thread; on an executor of your own, as that executor runs them.
 */
public interface FencedLeaderListener {

    /**
     * This instance now leads, with {@code token}. Fence the resource first, then act.
     *
     * @param token the grant's token: send it with every write
     */
    void leadershipAcquired(FencingToken token);

    /**
     * The grant that carried {@code token} is over (lost connection, lost session, lost node, or close). Stop all
     * work done under it at once. Called by {@link #leadershipLost(FencingToken, LossCause)} unless that is
     * overridden.
     *
     * @param token the token of the grant that ended
     */
    default void leadershipLost(FencingToken token) {}

    /**
     * The grant that carried {@code token} is over, because of {@code cause}. Stop all work done under it at once.
     * By default calls {@link #leadershipLost(FencingToken)}.
     *
     * @param token the token of the grant that ended
     * @param cause why it ended
     */
    default void leadershipLost(FencingToken token, LossCause cause) {
        leadershipLost(token);
    }
}
