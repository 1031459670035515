package dev.leasehold.recipes;

import java.util.Objects;

/**
 * A fencing token: proof of one grant of leadership, to be sent with every write the leader makes.
 *
 * <p>{@link #value()} is the {@code czxid} of the leader's own ephemeral-sequential znode, the zxid of the
 * transaction that created it. It was read only after checking, at read time, that the node was the lowest
 * child of the election path and was owned by the client's current session. zxids only grow while the
 * ensemble's history is continuous, and the leader is always the lowest <em>existing</em> node, so successive
 * leaders carry strictly increasing values: across leader death, rejoin, session expiry, server restarts and
 * quorum-leader changes (the new epoch shows in the high 32 bits).
 *
 * <p>IMPORTANT: a token protects nothing by itself. The resource that receives the write must compare it with
 * the highest token it has seen, in the same atomic operation as the write, and refuse a lower one. Accept an
 * <em>equal</em> token: the same leader on the same node writes many times, and gets the same value back if its
 * session survives a reconnect.
 *
 * <p>IMPORTANT: czxids go backwards if ZooKeeper's data is lost or rebuilt (a wiped data directory, a fresh
 * ensemble, a restore from an old snapshot). A fenced resource then refuses every new leader until an operator
 * re-bases it: safe, but down.
 *
 * <p>Thread-safety: an immutable record.
 *
 * @param value         the czxid of the leader's znode; compare tokens by this value only
 * @param path          the full ZooKeeper path of the leader's znode: with the client's namespace prefixed, if the
 *                      client has one (so {@code /app/leader/...} for namespace {@code app} and election path
 *                      {@code /leader})
 * @param participantId the id of the participant that was granted leadership
 */
public record FencingToken(long value, String path, String participantId) implements Comparable<FencingToken> {

    /**
     * Checks the components.
     *
     * @param value         the czxid of the leader's znode
     * @param path          the full path of the leader's znode
     * @param participantId the id of the participant granted leadership
     * @throws IllegalArgumentException if {@code value} is not greater than 0
     * @throws NullPointerException     if {@code path} or {@code participantId} is null
     */
    public FencingToken {
        if (value <= 0) {
            throw new IllegalArgumentException("value must be a czxid greater than 0, was " + value);
        }
        Objects.requireNonNull(path, "path must not be null");
        Objects.requireNonNull(participantId, "participantId must not be null");
    }

    /** @return the ZooKeeper epoch in which the leader's node was created (the high 32 bits of the czxid) */
    public long epoch() {
        return value >>> 32;
    }

    /** @return the transaction counter within the epoch (the low 32 bits of the czxid) */
    public long counter() {
        return value & 0xFFFF_FFFFL;
    }

    /** Orders tokens by {@link #value()} only: a higher value is a later grant. */
    @Override
    public int compareTo(FencingToken other) {
        return Long.compare(value, other.value);
    }

    @Override
    public String toString() {
        return "FencingToken[" + value + " (0x" + Long.toHexString(value) + "), participant=" + participantId
                + ", path=" + path + "]";
    }
}
