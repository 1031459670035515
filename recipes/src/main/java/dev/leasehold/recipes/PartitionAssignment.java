package dev.leasehold.recipes;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which member <em>should</em> hold each partition: balanced, and sticky so that a change moves only what must move.
 * A target only: who <em>holds</em> a partition is decided by the partition's nodes.
 *
 * <p>{@link #next} computes the next target from the current one and the live members:
 * <ol>
 *   <li>a partition stays with its member while that member is live;</li>
 *   <li>with N members and P partitions each member may hold floor(P/N), and P mod N of them one more: those that
 *       hold most now (ties by id), so that as few partitions as possible leave a member;</li>
 *   <li>a member above its share gives up the partitions it ranks lowest by rendezvous weight;</li>
 *   <li>each free partition (its member left, or it was given up) goes to the member below its share that ranks it
 *       highest by rendezvous weight.</li>
 * </ol>
 * So a join moves only the partitions the newcomer takes, a leave only the leaver's (3 members x 12 partitions: a
 * fourth member takes exactly 3), and every member holds floor(P/N) or ceil(P/N). A pure function of the member list
 * cannot promise both for every join and leave; this one is a function of the member list <em>and</em> the previous
 * target, which is why the target is stored in one znode and written by one member.
 *
 * <p>Encoded as UTF-8 text: a header, the member ids (one a line: ids have no control characters), then one member
 * index per partition ({@code -1}: nobody).
 *
 * <p>Thread-safety: immutable.
 */
final class PartitionAssignment {

    /** The most partitions a {@link FencedPartitions} takes. */
    static final int MAX_PARTITIONS = 10_000;

    private static final String HEADER = "leasehold-partitions 1 ";

    /** Member id by partition; {@code null}: nobody. */
    private final String[] owners;

    private PartitionAssignment(String[] owners) {
        this.owners = owners;
    }

    /** Nobody holds anything. */
    static PartitionAssignment empty(int partitionCount) {
        return new PartitionAssignment(new String[partitionCount]);
    }

    int partitionCount() {
        return owners.length;
    }

    /** @return the member that should hold {@code partition}, or {@code null} */
    String ownerOf(int partition) {
        return owners[partition];
    }

    /** @return the partitions {@code member} should hold, in order */
    SortedSet<Integer> partitionsOf(String member) {
        SortedSet<Integer> mine = new TreeSet<>();
        for (int p = 0; p < owners.length; p++) {
            if (member.equals(owners[p])) {
                mine.add(p);
            }
        }
        return mine;
    }

    /** @return every member named in this target */
    SortedSet<String> members() {
        SortedSet<String> members = new TreeSet<>();
        for (String owner : owners) {
            if (owner != null) {
                members.add(owner);
            }
        }
        return members;
    }

    /** @return partition -> member, in partition order, nobody's partitions left out */
    Map<Integer, String> asMap() {
        Map<Integer, String> map = new TreeMap<>();
        for (int p = 0; p < owners.length; p++) {
            if (owners[p] != null) {
                map.put(p, owners[p]);
            }
        }
        return map;
    }

    /** @return how many partitions have another member (or nobody) in {@code other} */
    int movedTo(PartitionAssignment other) {
        int moved = 0;
        for (int p = 0; p < owners.length; p++) {
            if (owners[p] != null && !owners[p].equals(other.owners[p])) {
                moved++;
            }
        }
        return moved;
    }

    /** The next target for {@code liveMembers}, moving as few partitions as possible: see the class comment. */
    PartitionAssignment next(Collection<String> liveMembers) {
        SortedSet<String> members = new TreeSet<>(liveMembers);
        String[] next = new String[owners.length];
        if (members.isEmpty()) {
            return new PartitionAssignment(next);
        }
        Map<String, List<Integer>> held = new HashMap<>();
        members.forEach(m -> held.put(m, new ArrayList<>()));
        for (int p = 0; p < owners.length; p++) {
            if (owners[p] != null && held.containsKey(owners[p])) {
                held.get(owners[p]).add(p);
            }
        }
        List<String> byLoad = new ArrayList<>(members);
        byLoad.sort(Comparator.<String>comparingInt(m -> held.get(m).size())
                .reversed()
                .thenComparing(Comparator.naturalOrder()));
        int base = owners.length / members.size();
        int extra = owners.length % members.size();
        Map<String, Integer> room = new HashMap<>();
        for (int i = 0; i < byLoad.size(); i++) {
            String member = byLoad.get(i);
            int share = base + (i < extra ? 1 : 0);
            List<Integer> mine = held.get(member);
            mine.sort(Comparator.<Integer>comparingLong(p -> weight(p, member))
                    .reversed()
                    .thenComparing(Comparator.naturalOrder()));
            for (int k = 0; k < Math.min(share, mine.size()); k++) {
                next[mine.get(k)] = member;
            }
            room.put(member, Math.max(0, share - mine.size()));
        }
        for (int p = 0; p < next.length; p++) {
            if (next[p] != null) {
                continue;
            }
            String best = null;
            for (String member : members) {
                if (room.get(member) > 0 && (best == null || weight(p, member) > weight(p, best))) {
                    best = member;
                }
            }
            next[p] = best;
            room.merge(best, -1, Integer::sum);
        }
        return new PartitionAssignment(next);
    }

    /**
     * The target after {@code from} gives up {@code partition} (its work made no progress), keeping every member at
     * floor(P/N) or ceil(P/N) so that {@link #next} leaves it as it is: the partition goes to the other live member with
     * the fewest partitions (ties: the one that ranks it highest); if that member holds as many as {@code from},
     * {@code from} takes in exchange the partition of that member that ranks highest for {@code from}.
     *
     * @return the new target, or {@code null} if no other live member is named in this target
     */
    PartitionAssignment handOff(int partition, String from, Collection<String> liveMembers) {
        if (!from.equals(owners[partition])) {
            return null;
        }
        Map<String, Integer> load = new HashMap<>();
        for (String owner : owners) {
            if (owner != null) {
                load.merge(owner, 1, Integer::sum);
            }
        }
        String to = null;
        for (String member : new TreeSet<>(liveMembers)) {
            if (member.equals(from) || !load.containsKey(member) && owners.length >= liveMembers.size()) {
                continue; // a member without partitions is not in the balanced target (unless P < N)
            }
            int l = load.getOrDefault(member, 0);
            int best = to == null ? Integer.MAX_VALUE : load.getOrDefault(to, 0);
            if (to == null || l < best || l == best && weight(partition, member) > weight(partition, to)) {
                to = member;
            }
        }
        if (to == null) {
            return null;
        }
        String[] next = owners.clone();
        next[partition] = to;
        if (load.getOrDefault(to, 0) >= load.get(from)) {
            int swap = -1;
            for (int q = 0; q < owners.length; q++) {
                if (to.equals(owners[q]) && (swap < 0 || weight(q, from) > weight(swap, from))) {
                    swap = q;
                }
            }
            next[swap] = from;
        }
        return new PartitionAssignment(next);
    }

    /** Rendezvous (highest random weight) of a partition for a member: FNV-1a of the id, mixed with the partition. */
    static long weight(int partition, String member) {
        long hash = 0xcbf29ce484222325L;
        for (byte b : member.getBytes(StandardCharsets.UTF_8)) {
            hash = (hash ^ (b & 0xff)) * 0x100000001b3L;
        }
        long z = hash + 0x9E3779B97F4A7C15L * (partition + 1L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    byte[] encode() {
        List<String> ids = new ArrayList<>(members());
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < ids.size(); i++) {
            index.put(ids.get(i), i);
        }
        StringBuilder text = new StringBuilder(HEADER).append(owners.length).append('\n');
        text.append(ids.size()).append('\n');
        ids.forEach(id -> text.append(id).append('\n'));
        for (int p = 0; p < owners.length; p++) {
            text.append(p == 0 ? "" : " ").append(owners[p] == null ? -1 : index.get(owners[p]));
        }
        return text.append('\n').toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Reads a stored target defensively: the node is writable by anyone the group's ACL lets in, and a target the
     * recipe cannot trust must never cost more than its own size, so every count and index is checked against what
     * the data really holds before anything is allocated from it.
     *
     * <p>Refused (with a message saying what was wrong): bytes that are not UTF-8; a missing or other header; a
     * partition count outside 1 .. {@link #MAX_PARTITIONS}; a member count that is negative or more than the lines
     * that follow; a member id that a member could not have ({@link PartitionNodes#requireMemberId}) or that is
     * named twice; an index line with another number of entries than the partition count; an owner index outside
     * -1 .. member count - 1; anything after the index line.
     *
     * @throws IllegalArgumentException if {@code data} is not an encoded assignment
     */
    static PartitionAssignment decode(byte[] data) {
        try {
            String text = java.nio.charset.StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                    .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(data))
                    .toString();
            String[] lines = text.split("\n", -1);
            if (!lines[0].startsWith(HEADER)) {
                throw new IllegalArgumentException("no header");
            }
            int partitions = number(lines[0].substring(HEADER.length()), "partition count");
            if (partitions < 1 || partitions > MAX_PARTITIONS) {
                throw new IllegalArgumentException(
                        "partition count " + partitions + " is not from 1 to " + MAX_PARTITIONS);
            }
            int count = lines.length < 2 ? -1 : number(lines[1], "member count");
            // header, count, the ids, the index line, and the empty rest after the last '\n'
            if (count < 0 || count > lines.length - 4) {
                throw new IllegalArgumentException("member count " + count + " for " + lines.length + " lines");
            }
            if (lines.length != count + 4 || !lines[count + 3].isEmpty()) {
                throw new IllegalArgumentException("truncated, or more after the index line");
            }
            java.util.Set<String> seen = new java.util.HashSet<>();
            for (int i = 0; i < count; i++) {
                String id = PartitionNodes.requireMemberId(lines[2 + i]);
                if (!seen.add(id)) {
                    throw new IllegalArgumentException("member '" + id + "' named twice");
                }
            }
            String[] indexes = lines[2 + count].isEmpty() ? new String[0] : lines[2 + count].split(" ", -1);
            if (indexes.length != partitions) {
                throw new IllegalArgumentException(indexes.length + " entries for " + partitions + " partitions");
            }
            String[] owners = new String[partitions];
            for (int p = 0; p < partitions; p++) {
                int i = number(indexes[p], "owner index");
                if (i < -1 || i >= count) {
                    throw new IllegalArgumentException(
                            "partition " + p + ": owner index " + i + " is not from -1 to " + (count - 1));
                }
                owners[p] = i < 0 ? null : lines[2 + i];
            }
            return new PartitionAssignment(owners);
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new IllegalArgumentException("not a partition assignment of this recipe: not UTF-8", e);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a partition assignment of this recipe: " + e.getMessage(), e);
        }
    }

    /** A decimal int: an optional '-' and at most 10 digits; nothing else is parsed. */
    private static int number(String text, String what) {
        if (text.isEmpty() || text.length() > 11 || !text.matches("-?[0-9]+")) {
            throw new IllegalArgumentException(what + " '" + text.replaceAll("\\p{Cntrl}", "?")
                    + "' is not a decimal number of at most 10 digits");
        }
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " " + text + " is out of range");
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PartitionAssignment that && java.util.Arrays.equals(owners, that.owners);
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(owners);
    }

    @Override
    public String toString() {
        return "PartitionAssignment" + asMap();
    }
}
