package dev.leasehold.scenarios.ops;

import dev.leasehold.scenarios.cli.EnvException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * An election as ZooKeeper holds it at one read: the participants' nodes in queue order (by sequence number), each
 * with its participant id (the node's data), its czxid (the token it holds or will hold) and its session. The lowest
 * node leads; every other one watches the node just before it (how Curator's LeaderLatch and InterProcessMutex
 * queue). Read with plain reads and no watches, so nothing is left behind. Immutable and thread-safe.
 *
 * <p>A path with no participants of its own (an election root such as {@code /leasehold/election}) carries the
 * elections found below it, at most {@value #DEPTH} levels down, so that {@code inspect} can name them.
 *
 * @param path         the election's path
 * @param participants in queue order; the first leads
 * @param below        when {@code participants} is empty: the elections below this path, by path; else empty
 */
record ElectionSnapshot(String path, List<Participant> participants, List<ElectionSnapshot> below) {

    /** How many levels below a path without participants are searched for elections. */
    static final int DEPTH = 3;

    /** A node of the election. */
    record Participant(String node, String participantId, long czxid, long sessionId, long sequence) {}

    private static final Pattern NODE = Pattern.compile(".*-(latch|lock)-(\\d{10})");

    /** Reads the election at {@code path}; an {@link EnvException} if the path does not exist. */
    static ElectionSnapshot read(CuratorFramework client, String path) throws Exception {
        return read(client, path, DEPTH);
    }

    private static ElectionSnapshot read(CuratorFramework client, String path, int depth) throws Exception {
        List<String> children;
        try {
            children = client.getChildren().forPath(path); // no watcher: nothing left behind
        } catch (KeeperException.NoNodeException e) {
            throw new EnvException("no election at " + path + ": the path does not exist", e);
        }
        List<Participant> participants = new ArrayList<>();
        List<String> others = new ArrayList<>();
        for (String child : children) {
            Matcher m = NODE.matcher(child);
            if (!m.matches()) {
                others.add(child); // not a participant's node: perhaps an election below
                continue;
            }
            Stat stat = new Stat();
            byte[] data;
            try {
                data = client.getData().storingStatIn(stat).forPath(path + "/" + child);
            } catch (KeeperException.NoNodeException e) {
                continue; // left between the two reads
            }
            participants.add(new Participant(
                    child,
                    data == null ? "" : new String(data, java.nio.charset.StandardCharsets.UTF_8),
                    stat.getCzxid(),
                    stat.getEphemeralOwner(),
                    Long.parseLong(m.group(2))));
        }
        participants.sort(Comparator.comparingLong(Participant::sequence));
        List<ElectionSnapshot> below = new ArrayList<>();
        if (participants.isEmpty() && depth > 0) {
            for (String child : others) {
                ElectionSnapshot sub;
                try {
                    sub = read(client, ZKPaths.makePath(path, child), depth - 1);
                } catch (EnvException gone) {
                    continue; // deleted between the two reads
                }
                if (sub.participants().isEmpty()) {
                    below.addAll(sub.below());
                } else {
                    below.add(sub);
                }
            }
            below.sort(Comparator.comparing(ElectionSnapshot::path));
        }
        return new ElectionSnapshot(path, List.copyOf(participants), List.copyOf(below));
    }

    Optional<Participant> leader() {
        return participants.isEmpty() ? Optional.empty() : Optional.of(participants.get(0));
    }

    /** The node the participant at {@code index} watches: the one before it; none for the leader. */
    Optional<Participant> watched(int index) {
        return index == 0 ? Optional.empty() : Optional.of(participants.get(index - 1));
    }

    String text() {
        StringBuilder out = new StringBuilder();
        out.append("election ")
                .append(path)
                .append(": ")
                .append(participants.size())
                .append(" participant")
                .append(participants.size() == 1 ? "" : "s")
                .append(", leader ")
                .append(leader().map(Participant::participantId)
                        .map(Printable::escape)
                        .orElse("none"))
                .append('\n');
        if (participants.isEmpty()) {
            if (!below.isEmpty()) {
                out.append("  no participants here; the elections below it (inspect one of these paths):\n");
                for (ElectionSnapshot e : below) {
                    int n = e.participants().size();
                    out.append("    ")
                            .append(e.path())
                            .append(" (")
                            .append(n)
                            .append(" participant")
                            .append(n == 1 ? "" : "s")
                            .append(", leader ")
                            .append(e.leader()
                                    .map(Participant::participantId)
                                    .map(Printable::escape)
                                    .orElse("none"))
                            .append(")\n");
                }
            }
            return out.toString();
        }
        out.append(
                String.format("  %-3s %-20s %-14s %-20s %s%n", "#", "participant", "czxid (token)", "session", "role"));
        for (int i = 0; i < participants.size(); i++) {
            Participant p = participants.get(i);
            String role = watched(i)
                    .map(w -> "follower, watches " + w.node() + " (" + Printable.escape(w.participantId()) + ")")
                    .orElse("LEADER");
            out.append(String.format(
                    "  %-3d %-20s %-14d %-20s %s%n",
                    i, Printable.escape(p.participantId()), p.czxid(), "0x" + Long.toHexString(p.sessionId()), role));
            out.append("      node ").append(p.node()).append('\n');
        }
        return out.toString();
    }

    String json() {
        StringBuilder out = new StringBuilder("{\"election\":")
                .append(Json.str(path))
                .append(",\"leader\":")
                .append(Json.str(leader().map(Participant::participantId).orElse(null)))
                .append(",\"participants\":[");
        for (int i = 0; i < participants.size(); i++) {
            Participant p = participants.get(i);
            out.append(i == 0 ? "" : ",")
                    .append("{\"position\":")
                    .append(i)
                    .append(",\"node\":")
                    .append(Json.str(p.node()))
                    .append(",\"participant\":")
                    .append(Json.str(p.participantId()))
                    .append(",\"czxid\":")
                    .append(p.czxid())
                    .append(",\"session\":")
                    .append(Json.str("0x" + Long.toHexString(p.sessionId())))
                    .append(",\"leader\":")
                    .append(i == 0)
                    .append(",\"watches\":")
                    .append(Json.str(watched(i).map(Participant::node).orElse(null)))
                    .append('}');
        }
        out.append("],\"below\":[");
        for (int i = 0; i < below.size(); i++) {
            out.append(i == 0 ? "" : ",").append(Json.str(below.get(i).path()));
        }
        return out.append("]}").toString();
    }
}
