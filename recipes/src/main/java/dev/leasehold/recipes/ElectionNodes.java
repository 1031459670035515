package dev.leasehold.recipes;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.common.PathUtils;
import org.apache.zookeeper.data.Stat;

/**
 * The only code that reads a fencing token from ZooKeeper: it turns "Curator says I lead" into a token, or into
 * a refusal when the node was not verified as leader at read time.
 *
 * <p>A token is handed out only for a node that is, at read time, the lowest child of the election path (by
 * sequence suffix) <em>and</em> has {@code ephemeralOwner} equal to the client's current session id (and, for a
 * selector, data equal to the participant id). A node re-created after a reconnect has a <em>higher</em> czxid
 * than the real leader's; handing that out would fence the real leader out. The sequence suffix is never used
 * as a token: it restarts at 0 when the container parent is reaped and it is a signed 32-bit counter.
 *
 * <p>All reads are made without watches, so the recipes add no watch to the election.
 */
final class ElectionNodes {

    /** Suffix marker of LeaderLatch's nodes: {@code _c_<uuid>-latch-0000000042}. */
    static final String LATCH_MARKER = "latch-";
    /** Suffix marker of LeaderSelector's (InterProcessMutex's) nodes: {@code _c_<uuid>-lock-0000000042}. */
    static final String SELECTOR_MARKER = "lock-";

    private static final int SEQUENCE_DIGITS = 10;

    private ElectionNodes() {}

    /** The outcome of one read: a token, or the reason none was handed out. */
    record Read(FencingToken token, String refusal) {
        static Read granted(FencingToken token) {
            return new Read(token, null);
        }

        static Read refused(String why) {
            return new Read(null, why);
        }

        boolean isGranted() {
            return token != null;
        }
    }

    /**
     * Verifies and reads the token of a LeaderLatch node in ONE round trip: a read-only multi of
     * {@code getChildren(parent)} and {@code getData(ourPath)}, served atomically by one server.
     *
     * @param ourPath the latch's own node, as Curator reports it (relative to the client's namespace)
     */
    static Read readLatchToken(CuratorFramework client, String ourPath, String participantId)
            throws KeeperException, InterruptedException, Exception {
        if (ourPath == null) {
            return Read.refused("the latch has no node");
        }
        ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
        String fullPath = ZKPaths.fixForNamespace(client.getNamespace(), ourPath);
        String parent = ZKPaths.getPathAndNode(fullPath).getPath();
        String ourNode = ZKPaths.getNodeFromPath(fullPath);

        List<OpResult> results = zk.multi(Arrays.asList(Op.getChildren(parent), Op.getData(fullPath)));
        if (results.get(0) instanceof OpResult.ErrorResult e) {
            return Read.refused("listing " + parent + " failed: " + KeeperException.Code.get(e.getErr()));
        }
        if (results.get(1) instanceof OpResult.ErrorResult e) {
            return Read.refused("reading our node " + fullPath + " failed: " + KeeperException.Code.get(e.getErr()));
        }
        List<String> children = ((OpResult.GetChildrenResult) results.get(0)).getChildren();
        Stat stat = ((OpResult.GetDataResult) results.get(1)).getStat();

        Optional<String> lowest = lowestChild(children, LATCH_MARKER);
        if (lowest.isEmpty() || !lowest.get().equals(ourNode)) {
            return Read.refused("our node " + ourNode + " is not the lowest child (lowest: " + lowest.orElse("none") + ")");
        }
        return verifyOwner(zk, stat, fullPath, participantId);
    }

    /**
     * Verifies and reads the token of a LeaderSelector node: Curator does not expose the selector's own node
     * (CURATOR-637), so list the children, take the lowest {@code lock-} node and require that it is owned by our
     * session and carries our id (two selectors may share one client, and so one session). Two round trips.
     *
     * @param electionPath the selector's path (relative to the client's namespace)
     */
    static Read readSelectorToken(CuratorFramework client, String electionPath, String participantId)
            throws Exception {
        ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
        String fullParent = ZKPaths.fixForNamespace(client.getNamespace(), electionPath);
        List<String> children = zk.getChildren(fullParent, false);
        Optional<String> lowest = lowestChild(children, SELECTOR_MARKER);
        if (lowest.isEmpty()) {
            return Read.refused("no lock node under " + fullParent);
        }
        String fullPath = ZKPaths.makePath(fullParent, lowest.get());
        Stat stat = new Stat();
        byte[] data;
        try {
            data = zk.getData(fullPath, false, stat);
        } catch (KeeperException.NoNodeException e) {
            return Read.refused("the lowest node " + fullPath + " vanished while reading it");
        }
        byte[] ourId = participantId.getBytes(StandardCharsets.UTF_8);
        if (!Arrays.equals(data, ourId)) {
            return Read.refused("the lowest node " + fullPath + " carries id '"
                    + new String(data == null ? new byte[0] : data, StandardCharsets.UTF_8) + "', not ours");
        }
        return verifyOwner(zk, stat, fullPath, participantId);
    }

    private static Read verifyOwner(ZooKeeper zk, Stat stat, String fullPath, String participantId) {
        long session = zk.getSessionId();
        if (stat.getEphemeralOwner() != session) {
            return Read.refused("node " + fullPath + " is owned by session 0x" + Long.toHexString(stat.getEphemeralOwner())
                    + ", ours is 0x" + Long.toHexString(session));
        }
        return Read.granted(new FencingToken(stat.getCzxid(), fullPath, participantId));
    }

    /** The child with the lowest sequence suffix after {@code marker}; children without one are ignored. */
    static Optional<String> lowestChild(List<String> children, String marker) {
        return children.stream()
                .filter(child -> sequenceOf(child, marker) >= 0)
                .min(Comparator.comparingLong(child -> sequenceOf(child, marker)));
    }

    /** The sequence number after the last {@code marker} in {@code node}, or -1 if it has none. Used to sort only. */
    static long sequenceOf(String node, String marker) {
        int at = node.lastIndexOf(marker);
        if (at < 0 || node.length() - at - marker.length() != SEQUENCE_DIGITS) {
            return -1;
        }
        long sequence = 0;
        for (int i = at + marker.length(); i < node.length(); i++) {
            char c = node.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            sequence = sequence * 10 + (c - '0');
        }
        return sequence;
    }

    // ---- argument checks shared by both recipes -------------------------------------------------------------

    static <T> T requireArgument(T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        return value;
    }

    static String requireText(String value, String name) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " must be a non-blank string, was "
                    + (value == null ? "null" : "'" + value + "'"));
        }
        return value;
    }

    static String requireElectionPath(String path, String name) {
        requireText(path, name);
        try {
            PathUtils.validatePath(path);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + " '" + path + "' is not a valid ZooKeeper path: "
                    + e.getMessage() + " (allowed: an absolute path such as /app/leader, no trailing slash,"
                    + " no empty, '.' or '..' segments)", e);
        }
        if (path.equals("/")) {
            throw new IllegalArgumentException(name + " must name a node below the root, such as /app/leader, was '/'");
        }
        return path;
    }

    static void requireStarted(CuratorFramework client) {
        if (client.getState() != CuratorFrameworkState.STARTED) {
            throw new IllegalStateException("the CuratorFramework client is " + client.getState()
                    + ": call client.start() before starting the recipe");
        }
    }

    static boolean suspendedIsError(CuratorFramework client) {
        return client.getConnectionStateErrorPolicy().isErrorState(org.apache.curator.framework.state.ConnectionState.SUSPENDED);
    }

    static java.util.concurrent.ThreadFactory namedDaemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
