package dev.leasehold.store;

import dev.leasehold.store.internal.Args;

/**
 * Whether the database behind the store can lose a committed fence mark when it fails over, as far as the connected
 * server can tell: the fence's durability is the database's. If a new leader's {@link FenceGate#advance} to 34 was
 * committed on a primary whose standby had not received it, and that standby is promoted, the new primary still says
 * 33 and the paused old leader's write with 33 is <b>accepted</b>. Read with {@link FencedSchema#durability}; {@link
 * FencedSchema#verify} returns it, and a {@link FenceGate} logs a WARN once at its first write when it is {@link
 * #atRisk()}.
 *
 * <p>IMPORTANT: the check sees only what the connected server reports. A standalone primary with no standby streaming
 * from it is {@link Replication#STANDALONE}: nothing there to fail over to, so no risk the check can see; a standby
 * that cascades from another standby, a replica restored from a WAL archive, or a failover manager that keeps a
 * standby disconnected is invisible to it.
 *
 * <p>Immutable and thread-safe.
 *
 * @param replication what the server reports about its replication
 * @param reason      why, in the server's own setting names, e.g. {@code "2 standbys stream from this primary, none
 *                    synchronously (synchronous_standby_names is empty)"}
 * @param advice      what to set so that an acknowledged commit survives a failover; empty when nothing is needed
 */
public record FailoverDurability(Replication replication, String reason, String advice) {

    /** What the connected server reports about its replication. */
    public enum Replication {
        /**
         * Commits are acknowledged only once a standby has them (PostgreSQL: {@code synchronous_standby_names} set
         * and {@code synchronous_commit} on, remote_write or remote_apply; MariaDB: semi-synchronous replication
         * active, or Galera). A failover to a synchronous standby keeps every acknowledged mark.
         */
        SYNCHRONOUS,
        /**
         * A commit can be acknowledged before any standby has it (PostgreSQL: standbys stream but none
         * synchronously, or {@code synchronous_commit} is local or off; MariaDB: semi-synchronous replication fell
         * back to asynchronous): a failover can lose acknowledged marks, and a stale token can then pass.
         */
        ASYNCHRONOUS,
        /** No standby streams from the connected server: no failover risk that the server can show. */
        STANDALONE,
        /** The server does not say (MariaDB with binary logging and no semi-synchronous replication; a standby). */
        UNKNOWN,
        /** The database does not replicate (H2). */
        NOT_APPLICABLE
    }

    /**
     * @param replication what the server reports about its replication
     * @param reason      why, not blank
     * @param advice      what to set, or "" when nothing is needed
     * @throws IllegalArgumentException if a value is null, or the reason is blank
     */
    public FailoverDurability {
        Args.notNull(replication, "replication");
        Args.notNull(reason, "reason");
        Args.notNull(advice, "advice");
        if (reason.isBlank()) {
            throw new IllegalArgumentException("reason must not be blank");
        }
    }

    /**
     * @return whether a failover (or, with {@code synchronous_commit = off}, a crash) can lose a mark that was
     *     acknowledged: {@link Replication#ASYNCHRONOUS}
     */
    public boolean atRisk() {
        return replication == Replication.ASYNCHRONOUS;
    }

    /** @return the replication, the reason and, if any, the advice, on one line */
    @Override
    public String toString() {
        return replication + ": " + reason + (advice.isEmpty() ? "" : "; " + advice);
    }
}
