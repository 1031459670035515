package dev.leasehold.recipes;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The tokens a {@link FencedPartitions} member holds, and the losses its listener has not been told yet. Package-private:
 * copied with the recipe.
 *
 * <p>A grant is computed on the recipe's thread; a withdrawal of everything (SUSPENDED, LOST) happens on Curator's
 * thread at once. A generation, bumped by every withdrawal of everything, voids a grant computed before it, so a token
 * is never put back after it was withdrawn. Withdrawn tokens wait in a queue until the recipe's thread tells the
 * listener, before anything else it does, so a partition's {@code lost} always comes before its next {@code
 * acquired}.
 *
 * <p>Thread-safety: thread-safe; never calls anyone's code.
 */
final class PartitionGrants {

    /** A loss to tell the listener. */
    record Loss(int partition, FencingToken token, LossCause cause) {}

    private final Map<Integer, FencingToken> owned = new ConcurrentHashMap<>();
    /** The session each held token's node belongs to; guarded by this. */
    private final Map<Integer, Long> sessions = new HashMap<>();

    private long generation; // guarded by this
    private final Queue<Loss> pending = new ConcurrentLinkedQueue<>();

    /** @return a snapshot, in partition order */
    SortedMap<Integer, FencingToken> snapshot() {
        return new TreeMap<>(owned);
    }

    boolean holds(int partition) {
        return owned.containsKey(partition);
    }

    synchronized long generation() {
        return generation;
    }

    /** Records a grant unless everything was withdrawn since {@code generation} was read. */
    synchronized boolean grant(int partition, FencingToken token, long session, long generation) {
        if (generation != this.generation) {
            return false;
        }
        owned.put(partition, token);
        sessions.put(partition, session);
        return true;
    }

    /** Withdraws one partition's token; the caller tells the listener. */
    synchronized FencingToken withdraw(int partition) {
        sessions.remove(partition);
        return owned.remove(partition);
    }

    /**
     * Withdraws the token of {@code partition} if it is still {@code token} (a grant that made no progress), queueing
     * its loss with {@link LossCause#STALLED}.
     *
     * @return whether it was withdrawn here
     */
    synchronized boolean stall(int partition, FencingToken token) {
        if (owned.get(partition) != token) {
            return false;
        }
        owned.remove(partition);
        sessions.remove(partition);
        pending.add(new Loss(partition, token, LossCause.STALLED));
        return true;
    }

    /**
     * Withdraws every token, queueing its loss. On LOST, grants already made in {@code currentSession} while it is
     * connected stay: only an older session's nodes are gone (Curator may tell LOST after the new session is here).
     *
     * @return how many were withdrawn
     */
    synchronized int withdrawAll(LossCause cause, long currentSession, boolean connected) {
        generation++;
        int count = 0;
        for (Integer p : new ArrayList<>(owned.keySet())) {
            if (cause != LossCause.LOST || sessions.get(p) != currentSession || !connected) {
                pending.add(new Loss(p, owned.remove(p), cause));
                sessions.remove(p);
                count++;
            }
        }
        return count;
    }

    /** @return the next loss to tell, or {@code null} */
    Loss nextLoss() {
        return pending.poll();
    }
}
