package dev.leasehold.recipes;

import java.util.List;
import java.util.TreeSet;
import org.apache.curator.framework.api.CuratorWatcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one {@link FencedPartitions} member knows of its group: the live members and the stored target, each read with
 * a watch, and the two writes of the target, both version-checked (a write that lost to another writer reads the
 * members and the target again and retries):
 * <ul>
 *   <li>{@link #write()}: the member with the smallest id writes the next target ({@link PartitionAssignment#next})
 *       when the stored one does not fit the members, or is malformed (then the others wait for it);</li>
 *   <li>{@link #handOff(int, HeldPartitions)}: a member whose partition made no progress deletes its node of it and
 *       hands it to another live member in the target ({@link PartitionAssignment#handOff}).</li>
 * </ul>
 * A target only: who <em>holds</em> a partition is decided by the partition's nodes. Package-private: copied with the
 * recipe.
 *
 * <p>Thread-safety: not thread-safe; the recipe's thread only.
 */
final class PartitionTarget {

    private static final Logger log = LoggerFactory.getLogger(FencedPartitions.class);

    private final PartitionNodes zk;
    private final String memberId;
    private final int partitionCount;
    private final CuratorWatcher membersWatcher;
    private final CuratorWatcher targetWatcher;

    private List<String> members = List.of();
    private PartitionNodes.Stored stored;
    /** The node as last read when its data was not a target of this recipe; {@code null} otherwise. */
    private PartitionNodes.Stored malformed;

    PartitionTarget(
            PartitionNodes zk,
            String memberId,
            int partitionCount,
            CuratorWatcher membersWatcher,
            CuratorWatcher targetWatcher) {
        this.zk = zk;
        this.memberId = memberId;
        this.partitionCount = partitionCount;
        this.membersWatcher = membersWatcher;
        this.targetWatcher = targetWatcher;
    }

    /** @return the live members as last read */
    List<String> members() {
        return members;
    }

    /**
     * @return the stored target and its version as last read or written; {@code null} before the first write. A
     *     malformed node leaves the last good target here ({@link #malformed()} says so).
     */
    PartitionNodes.Stored stored() {
        return stored;
    }

    /** @return whether the node holds data that is not a target of this recipe (the writer overwrites it) */
    boolean malformed() {
        return malformed != null;
    }

    /** Reads the members, watching for the next change. */
    void readMembers() throws Exception {
        members = zk.members(membersWatcher);
    }

    /** Reads the stored target, watching for the next change; a malformed one is logged once per version. */
    void readStored() throws Exception {
        PartitionNodes.Stored read = zk.assignment(targetWatcher).orElse(null);
        if (read != null && read.isMalformed()) {
            if (malformed == null || malformed.version() != read.version()) {
                log.warn(
                        "[{}] {} (version {}) is not a target of this recipe, ignored until the member with the"
                                + " smallest id rewrites it: {}",
                        memberId,
                        zk.assignmentPath(),
                        read.version(),
                        read.malformed());
            }
            malformed = read;
            return;
        }
        malformed = null;
        stored = read;
    }

    /** @return whether this member has the smallest id of the live members: the one that writes the target */
    boolean writesTarget() {
        return !members.isEmpty() && memberId.equals(new TreeSet<>(members).first());
    }

    /**
     * Writes the next target when the stored one does not fit the members, or is not a target of this recipe for
     * this member's partition count (malformed, or another count): then it is computed again from the last good
     * target (or from nothing) and written over it, version-checked.
     */
    void write() throws Exception {
        for (int attempt = 0; attempt < 5; attempt++) {
            boolean otherCount = stored != null && stored.assignment().partitionCount() != partitionCount;
            boolean rewrite = malformed != null || otherCount;
            PartitionAssignment previous =
                    stored == null || otherCount ? PartitionAssignment.empty(partitionCount) : stored.assignment();
            PartitionAssignment next = previous.next(members);
            int version = malformed != null ? malformed.version() : stored == null ? -1 : stored.version();
            if (!rewrite && stored != null && next.equals(previous)) {
                return;
            }
            if (zk.writeAssignment(next, version)) {
                if (rewrite) {
                    log.warn(
                            "[{}] rewrote {} (version {}, {}) with a target for {} members",
                            memberId,
                            zk.assignmentPath(),
                            version,
                            malformed != null
                                    ? "malformed"
                                    : stored.assignment().partitionCount() + " partitions, this member has "
                                            + partitionCount,
                            members.size());
                } else {
                    log.debug(
                            "[{}] target for {} members: {} partitions move",
                            memberId,
                            members.size(),
                            previous.movedTo(next));
                }
                stored = new PartitionNodes.Stored(next, version + 1);
                malformed = null;
                return;
            }
            readMembers();
            readStored();
        }
        throw new IllegalStateException("the target at " + zk.assignmentPath() + " kept changing under us");
    }

    /**
     * After {@code lost(p, STALLED)} returned: deletes our node of p and hands p to another live member in the target
     * (version-checked, as {@link #write()}). Alone, nothing moves: p is joined again with a new node.
     */
    void handOff(int p, HeldPartitions held) throws Exception {
        held.release(p, LossCause.STALLED); // withdrawn and told already: this deletes our node
        for (int attempt = 0; attempt < 5 && stored != null; attempt++) {
            PartitionAssignment next = stored.assignment().handOff(p, memberId, members);
            if (next == null) {
                return;
            }
            if (zk.writeAssignment(next, stored.version())) {
                log.info("[{}] partition {} made no progress: handed to {}", memberId, p, next.ownerOf(p));
                stored = new PartitionNodes.Stored(next, stored.version() + 1);
                return;
            }
            readMembers();
            readStored();
        }
    }
}
