package dev.leasehold.recipes;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The znodes of one {@link FencedPartitions} group, and the reads and writes the recipe makes of them. Package-private:
 * copied with the recipe.
 *
 * <pre>
 * path/members/&lt;memberId&gt;                 ephemeral, one per live member (data: the id)
 * path/assignment                           persistent, the target (a {@link PartitionAssignment}), written by the
 *                                           member with the smallest id
 * path/partitions/&lt;p&gt;/_c_&lt;uuid&gt;-lease-&lt;seq&gt;  protected ephemeral-sequential, one per member that wants p
 *                                           (data: the id); the lowest holds p, its czxid is the token
 * </pre>
 *
 * <p>The {@code _c_<uuid>-} prefix is this instance's own, the same for all its nodes (as Curator's protected mode
 * names a node, but one uuid for the instance, not one per create): a create whose answer was lost and that was sent
 * again (by Curator's retry, or by the next step) leaves a second node of ours in the partition. A check finds it by
 * the prefix, does not queue behind it, and deletes it. Many creates travel in one {@code multi}
 * ({@link PartitionBatches}); the nodes of one multi share one czxid (one transaction), which is why a token is
 * compared only with tokens of the same partition.
 *
 * <p>Thread-safety: stateless apart from the paths and the batch helper; the calls block on the network (the
 * recipe's thread only).
 */
final class PartitionNodes {

    /** Suffix marker of a partition's nodes: {@code _c_<uuid>-lease-0000000042}. */
    static final String MARKER = "lease-";

    /** Our node for one partition and what its create's answer told once and for ever. */
    record Own(String path, long czxid, long owner) {}

    private final CuratorFramework client;
    private final String membersPath;
    private final String assignmentPath;
    private final String partitionsPath;
    /** Our nodes' name before the sequence: {@code _c_<uuid>-lease-}, one uuid for this instance. */
    private final String leaseName = "_c_" + java.util.UUID.randomUUID() + "-" + MARKER;

    private final PartitionBatches batch;

    PartitionNodes(CuratorFramework client, String path) {
        this.client = client;
        this.membersPath = ZKPaths.makePath(path, "members");
        this.assignmentPath = ZKPaths.makePath(path, "assignment");
        this.partitionsPath = ZKPaths.makePath(path, "partitions");
        this.batch = new PartitionBatches(client, this);
    }

    /** Many partitions' nodes in one request: creates, checks and deletes (multi). */
    PartitionBatches batch() {
        return batch;
    }

    String partitionsPath() {
        return partitionsPath;
    }

    /** What our next node of {@code partition} is created as; ZooKeeper appends the sequence. */
    String newLeasePath(int partition) {
        return ZKPaths.makePath(partitionPath(partition), leaseName);
    }

    /** Is {@code child} (a node name) one of this instance's nodes? */
    boolean isOurs(String child) {
        return child.startsWith(leaseName);
    }

    String partitionPath(int partition) {
        return ZKPaths.makePath(partitionsPath, Integer.toString(partition));
    }

    String memberPath(String memberId) {
        return ZKPaths.makePath(membersPath, memberId);
    }

    String assignmentPath() {
        return assignmentPath;
    }

    /**
     * Creates our member node (data: the id and this instance's own marker).
     *
     * @return empty if created (or it is ours already: a create Curator retried), else the session that owns a live
     *     node of that id
     */
    Optional<Long> createMember(String memberId, String instance) throws Exception {
        String path = memberPath(memberId);
        byte[] data = bytes(memberId + "\n" + instance);
        for (int attempt = 0; attempt < 5; attempt++) {
            try {
                client.create()
                        .creatingParentContainersIfNeeded()
                        .withMode(CreateMode.EPHEMERAL)
                        .forPath(path, data);
                return Optional.empty();
            } catch (KeeperException.NoNodeException reaped) {
                // a parent container, empty, was reaped between Curator's mkdirs and the create: create again
                // (seen under load in FencedPartitionsTest.closeRacingStartLeavesNothingBehind)
            } catch (KeeperException.NodeExistsException e) {
                Stat stat = new Stat();
                try {
                    byte[] existing = client.getData().storingStatIn(stat).forPath(path);
                    boolean ours = java.util.Arrays.equals(existing, data)
                            && stat.getEphemeralOwner() == ElectionNodes.sessionId(client);
                    return ours ? Optional.empty() : Optional.of(stat.getEphemeralOwner());
                } catch (KeeperException.NoNodeException gone) {
                    // it went away meanwhile: create again
                }
            }
        }
        throw new IllegalStateException(path + " kept appearing and vanishing");
    }

    /** Sets an exists watch on a member node of another session; {@code false} if it is gone already. */
    boolean watchMember(String memberId, CuratorWatcher watcher) throws Exception {
        return client.checkExists().usingWatcher(watcher).forPath(memberPath(memberId)) != null;
    }

    void deleteMember(String memberId) {
        try {
            client.delete().guaranteed().forPath(memberPath(memberId));
        } catch (KeeperException.NoNodeException e) {
            // gone already (its session ended)
        } catch (Exception e) {
            throw new IllegalStateException("could not delete " + memberPath(memberId), e);
        }
    }

    /** The live members, watching for the next change. */
    List<String> members(CuratorWatcher watcher) throws Exception {
        return client.getChildren().usingWatcher(watcher).forPath(membersPath);
    }

    /**
     * The stored target and its version. A node whose data is not a target of this recipe ({@link
     * PartitionAssignment#decode}) is read as {@code assignment == null} with the reason in {@code malformed}: the
     * member that writes the target overwrites it (version-checked), the others wait for that.
     */
    record Stored(PartitionAssignment assignment, int version, String malformed) {
        Stored(PartitionAssignment assignment, int version) {
            this(assignment, version, null);
        }

        boolean isMalformed() {
            return assignment == null;
        }
    }

    /** The stored target, its version, watching for the next change (a missing node watched for its create). */
    Optional<Stored> assignment(CuratorWatcher watcher) throws Exception {
        Stat stat = new Stat();
        try {
            byte[] data = watcher == null
                    ? client.getData().storingStatIn(stat).forPath(assignmentPath)
                    : client.getData().storingStatIn(stat).usingWatcher(watcher).forPath(assignmentPath);
            try {
                return Optional.of(new Stored(PartitionAssignment.decode(data), stat.getVersion()));
            } catch (IllegalArgumentException e) {
                return Optional.of(new Stored(null, stat.getVersion(), e.getMessage()));
            }
        } catch (KeeperException.NoNodeException e) {
            if (watcher != null && client.checkExists().usingWatcher(watcher).forPath(assignmentPath) != null) {
                return assignment(watcher); // created meanwhile
            }
            return Optional.empty();
        }
    }

    /** Writes the target if nobody changed it since {@code version} was read (-1: it did not exist). */
    boolean writeAssignment(PartitionAssignment next, int version) throws Exception {
        try {
            if (version < 0) {
                client.create()
                        .creatingParentContainersIfNeeded()
                        .withMode(CreateMode.PERSISTENT)
                        .forPath(assignmentPath, next.encode());
            } else {
                client.setData().withVersion(version).forPath(assignmentPath, next.encode());
            }
            return true;
        } catch (KeeperException.NodeExistsException | KeeperException.BadVersionException e) {
            return false; // another writer was first: read again
        }
    }

    /**
     * Creates our node for {@code partition} on its own: one round trip, the answer carries czxid and owner (the
     * fallback of {@link PartitionBatches#createLeases}).
     */
    Own createLease(int partition, String memberId) throws Exception {
        Stat stat = new Stat();
        String path = client.create()
                .storingStatIn(stat)
                .creatingParentContainersIfNeeded()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(newLeasePath(partition), bytes(memberId));
        if (stat.getCzxid() == 0) { // the answer carried no Stat
            Stat read = client.checkExists().forPath(path);
            if (read == null) {
                throw new KeeperException.NoNodeException(path);
            }
            stat = read;
        }
        return new Own(path, stat.getCzxid(), stat.getEphemeralOwner());
    }

    /** What a check of our node found: it holds, it waits behind {@code predecessor}, or it is gone. */
    record Check(boolean holds, String predecessor, boolean gone) {}

    /** What a partition's children say of our node, and the other nodes of ours in it (to delete, not to wait on). */
    record Look(Check check, List<String> duplicates) {}

    /**
     * Reads {@code children} (names) of a partition for our node {@code ours}: gone if it is not there; else it holds
     * if no node below it is anyone's but ours, else it waits behind the highest such node. Any other node with our
     * prefix is a duplicate of ours (a create sent twice, or our previous session's node after its loss was told).
     */
    Look look(String ours, List<String> children) {
        if (!children.contains(ours)) {
            return new Look(new Check(false, null, true), List.of());
        }
        long ourSequence = ElectionNodes.sequenceOf(ours, MARKER);
        String predecessor = null;
        long best = -1;
        List<String> duplicates = new java.util.ArrayList<>();
        for (String child : children) {
            if (child.equals(ours)) {
                continue;
            }
            if (isOurs(child)) {
                duplicates.add(child);
                continue;
            }
            long sequence = ElectionNodes.sequenceOf(child, MARKER);
            if (sequence >= 0 && sequence < ourSequence && sequence > best) {
                best = sequence;
                predecessor = child;
            }
        }
        return new Look(new Check(predecessor == null, predecessor, false), duplicates);
    }

    /**
     * Is our node the lowest of the partition? If not, watches the node just below it (exists watch: only the
     * predecessor's deletion wakes us, not every change of the partition). Two round trips at most (more only to
     * delete a duplicate of ours).
     */
    Check check(int partition, Own own, CuratorWatcher watcher) throws Exception {
        String parent = partitionPath(partition);
        while (true) {
            List<String> children;
            try {
                children = client.getChildren().forPath(parent);
            } catch (KeeperException.NoNodeException e) {
                return new Check(false, null, true);
            }
            Look look = look(ZKPaths.getNodeFromPath(own.path()), children);
            for (String duplicate : look.duplicates()) {
                deleteNode(ZKPaths.makePath(parent, duplicate));
            }
            Check check = look.check();
            if (check.gone() || check.holds()) {
                return check;
            }
            String predecessorPath = ZKPaths.makePath(parent, check.predecessor());
            if (client.checkExists().usingWatcher(watcher).forPath(predecessorPath) != null) {
                return check;
            }
            // the predecessor left between the two reads: look again
        }
    }

    /** Deletes our node (retried by Curator in the background if the connection is down). */
    void deleteLease(Own own) {
        deleteNode(own.path());
    }

    /** Deletes one of our nodes (retried by Curator in the background if the connection is down). */
    void deleteNode(String path) {
        try {
            client.delete().guaranteed().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            // gone already (its session ended)
        } catch (Exception e) {
            throw new IllegalStateException("could not delete " + path, e);
        }
    }

    /** Who holds each partition now: the lowest node's id, token and session (two reads a partition, no watch). */
    Optional<LeaderInfo> holder(int partition) {
        return ElectionNodes.readLeader(client, partitionPath(partition), MARKER);
    }

    /** The partition a watched lease node belongs to, from the event's path; -1 if it is not one of ours. */
    int partitionOf(String eventPath) {
        if (eventPath == null) {
            return -1;
        }
        String parent = ZKPaths.getPathAndNode(eventPath).getPath();
        ZKPaths.PathAndNode split = ZKPaths.getPathAndNode(parent);
        String full = ElectionNodes.fullPath(client, partitionsPath);
        if (!split.getPath().equals(partitionsPath) && !split.getPath().equals(full)) {
            return -1;
        }
        try {
            return Integer.parseInt(split.getNode());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static final int MAX_ID_LENGTH = 200;

    /** A member id is a node name: non-blank, at most 200 characters, no '/', no control characters, not . or .. */
    static String requireMemberId(String id) {
        ElectionNodes.requireText(id, "memberId");
        boolean control = id.chars().anyMatch(Character::isISOControl);
        if (id.length() > MAX_ID_LENGTH || id.contains("/") || control || id.equals(".") || id.equals("..")) {
            throw new IllegalArgumentException("memberId must be at most " + MAX_ID_LENGTH
                    + " characters, without '/' or control characters, and not '.' or '..', was '"
                    + id.replaceAll("\\p{Cntrl}", "?") + "'");
        }
        return id;
    }
}
