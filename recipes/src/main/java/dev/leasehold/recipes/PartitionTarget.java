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
 *       when the stored one does not fit the members;</li>
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

    /** @return the stored target and its version as last read or written; {@code null} before the first write */
    PartitionNodes.Stored stored() {
        return stored;
    }

    /** Reads the live members, watching for the next change. */
    void readMembers() throws Exception {
        members = zk.members(membersWatcher);
    }

    /** Reads the stored target, watching for the next change. */
    void readStored() throws Exception {
        stored = zk.assignment(targetWatcher).orElse(null);
    }

    /** @return whether this member has the smallest id of the live members: the one that writes the target */
    boolean writesTarget() {
        return !members.isEmpty() && memberId.equals(new TreeSet<>(members).first());
    }

    /** Writes the next target when the stored one does not fit the members. */
    void write() throws Exception {
        for (int attempt = 0; attempt < 5; attempt++) {
            PartitionAssignment previous =
                    stored == null ? PartitionAssignment.empty(partitionCount) : stored.assignment();
            PartitionAssignment next = previous.next(members);
            if (stored != null && next.equals(previous)) {
                return;
            }
            if (zk.writeAssignment(next, stored == null ? -1 : stored.version())) {
                log.debug(
                        "[{}] target for {} members: {} partitions move",
                        memberId,
                        members.size(),
                        previous.movedTo(next));
                stored = new PartitionNodes.Stored(next, stored == null ? 0 : stored.version() + 1);
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
