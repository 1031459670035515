package dev.leasehold.scenarios.ops;

import dev.leasehold.scenarios.EnvException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * An election as ZooKeeper holds it at one read: the participants' nodes in queue order (by sequence number), each
 * with its participant id (the node's data), its czxid (the token it holds or will hold) and its session. The lowest
 * node leads; every other one watches the node just before it (how Curator's LeaderLatch and InterProcessMutex
 * queue). Read with plain reads and no watches, so nothing is left behind. Immutable and thread-safe.
 *
 * @param path         the election's path
 * @param participants in queue order; the first leads
 */
record ElectionSnapshot(String path, List<Participant> participants) {

    /** A node of the election. */
    record Participant(String node, String participantId, long czxid, long sessionId, long sequence) {}

    private static final Pattern NODE = Pattern.compile(".*-(latch|lock)-(\\d{10})");

    /** Reads the election at {@code path}; an {@link EnvException} if the path does not exist. */
    static ElectionSnapshot read(CuratorFramework client, String path) throws Exception {
        List<String> children;
        try {
            children = client.getChildren().forPath(path); // no watcher: nothing left behind
        } catch (KeeperException.NoNodeException e) {
            throw new EnvException("no election at " + path + ": the path does not exist", e);
        }
        List<Participant> participants = new ArrayList<>();
        for (String child : children) {
            Matcher m = NODE.matcher(child);
            if (!m.matches()) {
                continue; // not a participant's node
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
        return new ElectionSnapshot(path, List.copyOf(participants));
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
                .append(leader().map(Participant::participantId).orElse("none"))
                .append('\n');
        if (participants.isEmpty()) {
            return out.toString();
        }
        out.append(
                String.format("  %-3s %-20s %-14s %-20s %s%n", "#", "participant", "czxid (token)", "session", "role"));
        for (int i = 0; i < participants.size(); i++) {
            Participant p = participants.get(i);
            String role = watched(i)
                    .map(w -> "follower, watches " + w.node() + " (" + w.participantId() + ")")
                    .orElse("LEADER");
            out.append(String.format(
                    "  %-3d %-20s %-14d %-20s %s%n",
                    i, p.participantId(), p.czxid(), "0x" + Long.toHexString(p.sessionId()), role));
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
        return out.append("]}").toString();
    }
}
