package dev.leasehold.recipes;

/**
 * Told when a {@link FencedMutex} hold ends without its holder releasing it: the connection was suspended (under
 * Curator's default error policy), the session was lost, the holder made no progress within the progress deadline,
 * or the mutex was closed.
 *
 * <p>Calls never run on a ZooKeeper or Curator thread, nor under a lock of the mutex: the mutex's own thread hands
 * each call to the executor given with the listener ({@link FencedMutex#addLossListener(FencedLossListener,
 * java.util.concurrent.Executor)}). A listener that throws is logged and does not break the mutex.
 *
 * <p>IMPORTANT: by the time the call runs, the holder's work may already have written with the token (and another
 * process may hold the lock with a higher one). Stop the work at once; the resource's token check is what refuses its
 * late writes. The holder must still call {@link FencedMutex#release()}: it removes the node if it is still there.
 *
 * <p>Thread-safety: called as the executor runs it; one call per lost hold and listener.
 */
@FunctionalInterface
public interface FencedLossListener {

    /**
     * The hold that carried {@code token} is over, because of {@code cause}.
     *
     * @param token the token of the hold that ended
     * @param cause why it ended: {@link LossCause#SUSPENDED}, {@link LossCause#LOST}, {@link LossCause#STALLED},
     *              {@link LossCause#CLOSED} or {@link LossCause#NODE_GONE}
     */
    void lost(FencingToken token, LossCause cause);
}
