package dev.leasehold.recipes;

import java.util.Objects;

/**
 * Who leads an election at the moment it was read: the lowest node of the election path, read from ZooKeeper.
 *
 * <p>IMPORTANT: a snapshot. By the time the caller looks at it, the leader may have changed; and the lowest node's
 * owner may not yet have been told it leads. Never use it as permission to write: only the leader's own token is.
 *
 * <p>Thread-safety: an immutable record.
 *
 * @param participantId the id stored as the leader node's data
 * @param token         the token the leader holds or will hold: the czxid of its node, and the node's full path
 * @param sessionId     the ZooKeeper session that owns the leader's node
 */
public record LeaderInfo(String participantId, FencingToken token, long sessionId) {

    /**
     * Checks the components.
     *
     * @param participantId the id stored as the leader node's data
     * @param token         the token the leader holds or will hold
     * @param sessionId     the session that owns the leader's node
     * @throws NullPointerException if {@code participantId} or {@code token} is null
     */
    public LeaderInfo {
        Objects.requireNonNull(participantId, "participantId must not be null");
        Objects.requireNonNull(token, "token must not be null");
    }
}
