package dev.leasehold.recipes;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.common.PathUtils;
import org.apache.zookeeper.data.Stat;

/**
 * The reads the recipes make of the election (a selector's token, and who leads), the argument checks they
 * share, and small helpers. Package-private: copied with the recipes.
 *
 * <p>A token is handed out only for a node that was the lowest child of the election path at some instant (Curator
 * establishes it before it grants; {@link #readSelectorToken} checks it itself) <em>and</em> has {@code
 * ephemeralOwner} equal to the client's current session id. A node re-created after a reconnect has a <em>higher</em> czxid
 * than the real leader's; handing that out would fence the real leader out. The sequence suffix is never used
 * as a token: it restarts at 0 when the container parent is reaped and it is a signed 32-bit counter.
 *
 * <p>All reads are made without watches, so the recipes add no watch to the election.
 *
 * <p>Thread-safety: stateless; safe from any thread (the reads block on the network: never on ZooKeeper's threads).
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
     * The token of the selector's own node from the Stat its create's answer carried: no round trip. Curator's mutex
     * granted the lock only after listing the node as the lowest child, and czxid and ephemeralOwner never change
     * for a node; what is left to check is that its owner is our current session (a node of an expired session is
     * not ours).
     */
    static Read ownSelectorToken(CuratorFramework client, String ourPath, Stat stat, String participantId) {
        return verifyOwner(sessionId(client), stat, fullPath(client, ourPath), participantId);
    }

    /**
     * Reads the token of the selector's own node, whose path Curator's create returned: ONE round trip. Curator's
     * mutex granted the lock only after listing the node as the lowest child; a lower sequence is never created
     * later. What is left to check is that the node still exists and is owned by our current session.
     *
     * @param ourPath the node, namespace-relative, as Curator's create returned it
     */
    static Read readOwnSelectorToken(CuratorFramework client, String ourPath, String participantId) throws Exception {
        Stat stat = client.checkExists().forPath(ourPath);
        String fullPath = fullPath(client, ourPath);
        if (stat == null) {
            return Read.refused("our node " + fullPath + " is gone");
        }
        return verifyOwner(sessionId(client), stat, fullPath, participantId);
    }

    /**
     * Who leads the election at {@code electionPath}: the lowest node carrying {@code marker}, its data (the
     * participant id), czxid and owner. Two reads (children, then the node), no watch; retried if the lowest node
     * vanishes between them.
     */
    static Optional<LeaderInfo> readLeader(CuratorFramework client, String electionPath, String marker) {
        try {
            for (int attempt = 0; attempt < 5; attempt++) {
                List<String> children;
                try {
                    children = client.getChildren().forPath(electionPath);
                } catch (KeeperException.NoNodeException e) {
                    return Optional.empty();
                }
                Optional<String> lowest = lowestChild(children, marker);
                if (lowest.isEmpty()) {
                    return Optional.empty();
                }
                String path = ZKPaths.makePath(electionPath, lowest.get());
                Stat stat = new Stat();
                byte[] data;
                try {
                    data = client.getData().storingStatIn(stat).forPath(path);
                } catch (KeeperException.NoNodeException e) {
                    continue; // the leader left between the two reads: look again
                }
                String id = new String(data == null ? new byte[0] : data, StandardCharsets.UTF_8);
                return Optional.of(new LeaderInfo(
                        id, new FencingToken(stat.getCzxid(), fullPath(client, path), id), stat.getEphemeralOwner()));
            }
            return Optional.empty();
        } catch (Exception e) {
            throw new IllegalStateException("could not read the leader of " + electionPath, e);
        }
    }

    /** The node's full ZooKeeper path: with the client's namespace, if it has one. */
    static String fullPath(CuratorFramework client, String path) {
        return ZKPaths.fixForNamespace(client.getNamespace(), path);
    }

    /** The client's current session id, or 0 if it has none (then no node is ours). Never blocks on the network. */
    static long sessionId(CuratorFramework client) {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return 0;
        }
    }

    static boolean isConnected(CuratorFramework client) {
        return client.getZookeeperClient().isConnected();
    }

    /**
     * {@code true} on ZooKeeper's event or send thread or one of Curator's threads (a connection-state listener,
     * say): threads that must never be blocked. Known by their names, which ZooKeeper and Curator set.
     */
    static boolean isZooKeeperOrCuratorThread() {
        String name = Thread.currentThread().getName();
        return name.endsWith("-EventThread") || name.contains("-SendThread(") || name.startsWith("Curator-");
    }

    static java.time.Duration requireCloseWait(java.time.Duration wait) {
        requireArgument(wait, "closeWait");
        if (wait.isNegative() || wait.isZero() || wait.compareTo(java.time.Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("closeWait must be more than 0 and at most 1 hour, was " + wait);
        }
        return wait;
    }

    /**
     * Verifies and reads the token of a LeaderSelector node: Curator does not expose the selector's own node
     * (CURATOR-637), so list the children, take the lowest {@code lock-} node and require that it is owned by our
     * session and carries our id (two selectors may share one client, and so one session). Two round trips.
     *
     * @param electionPath the selector's path (relative to the client's namespace)
     */
    static Read readSelectorToken(CuratorFramework client, String electionPath, String participantId) throws Exception {
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
        return verifyOwner(zk.getSessionId(), stat, fullPath, participantId);
    }

    private static Read verifyOwner(long session, Stat stat, String fullPath, String participantId) {
        if (stat.getEphemeralOwner() != session) {
            return Read.refused("node " + fullPath + " is owned by session 0x"
                    + Long.toHexString(stat.getEphemeralOwner()) + ", ours is 0x" + Long.toHexString(session));
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
            throw new IllegalArgumentException(
                    name + " must be a non-blank string, was " + (value == null ? "null" : "'" + value + "'"));
        }
        return value;
    }

    static String requireElectionPath(String path, String name) {
        requireText(path, name);
        try {
            PathUtils.validatePath(path);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    name + " '" + path + "' is not a valid ZooKeeper path: "
                            + e.getMessage() + " (allowed: an absolute path such as /app/leader, no trailing slash,"
                            + " no empty, '.' or '..' segments)",
                    e);
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
        return client.getConnectionStateErrorPolicy()
                .isErrorState(org.apache.curator.framework.state.ConnectionState.SUSPENDED);
    }

    static java.util.concurrent.ThreadFactory namedDaemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    /**
     * One background read of {@code path}, awaited (at most {@code timeout}; not at all while disconnected):
     * ZooKeeper answers a session's requests in order and Curator runs their callbacks in that order, so every
     * callback of a request sent before this one has run when it returns.
     */
    static void awaitEarlierAnswers(CuratorFramework client, String path, Duration timeout) {
        if (!isConnected(client)) {
            return;
        }
        CountDownLatch answered = new CountDownLatch(1);
        try {
            client.checkExists()
                    .inBackground((c, event) -> answered.countDown())
                    .forPath(path);
            answered.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // closing anyway: this read only orders Curator's own clean-up before the client's close
        }
    }
}
