package dev.leasehold.shedlock;

import java.util.Optional;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.common.PathUtils;
import org.apache.zookeeper.data.Stat;

/**
 * The lock on ZooKeeper, under basePath: a ShedLock {@link ExtensibleLockProvider} whose locks are {@link
 * FencedSimpleLock}s carrying a fencing token.
 *
 * <p>One persistent node per lock name, {@code basePath/name}, whose data says until when the lock is held (see the
 * node format in the package's lock-node record, readable with {@code zkCli.sh get}). The algorithm, every write
 * one ZooKeeper operation:
 * <ol>
 *   <li><b>lock</b>: read the node. None: create it, holding the lock for {@code lockAtMostFor}. One: if it says the
 *       lock is held past the moment of its last write, read the server's time (an empty write to the base path's own
 *       node) and give up (empty) while that time is before the lock's end; otherwise take it with a {@code setData}
 *       checked against the version read. Node exists or version moved on: someone else took it first (empty).</li>
 *   <li><b>token</b>: the zxid of the acquiring write: the node's {@code czxid} when the lock created it, the {@code
 *       mzxid} of the version-checked {@code setData} that took it otherwise. ZooKeeper's zxids only grow, so every
 *       acquisition's token is higher than every earlier one of the name, from any process, across restarts of the
 *       clients and of the servers (not across a wiped or rebuilt ensemble: the recipes' documentation says how to
 *       re-base a fence then). Not a counter of our own.</li>
 *   <li><b>extend</b>: a {@code setData} checked against our last write's version, holding the lock for the new
 *       {@code lockAtMostFor} from that write and keeping the acquisition's token in the data. Version moved on: the
 *       lock expired and someone took it (empty, and never a new token). If the write's time shows the lock had
 *       already expired (nobody had taken it yet), it is handed back at once and the answer is empty too.</li>
 *   <li><b>unlock</b>: a {@code setData} checked against our last write's version, holding the lock until {@code
 *       max(now, lockedAt + lockAtLeastFor)}. Version moved on: someone took it after it expired; it is left alone
 *       (a WARN says the task ran past {@code lockAtMostFor}).</li>
 * </ol>
 *
 * <p><b>Clock.</b> Every instant is the ZooKeeper server's: the {@code mtime} that each write returns in its Stat
 * (stamped by the ensemble's leader), never this JVM's clock (ShedLock's {@code ClockProvider} and the {@code
 * createdAt} of a {@code LockConfiguration} are not used; only its durations). A step of the leader's wall clock,
 * or a new leader whose clock differs, moves every lock's end by as much: backwards lengthens locks, forwards can
 * end one early. That is a lease's nature; the token is what keeps the early end harmless, at the resource.
 *
 * <p>The nodes are persistent: a lock outlives its holder's ZooKeeper session and expires only at {@code
 * lockAtMostFor}, as ShedLock's contract says. The provider owns {@code basePath}: it creates it when missing, and
 * rewrites its node's data (empty) to read the server's time. Do not share it with another lock provider. A node is
 * never deleted (deleting would be harmless for the tokens, which only grow; a node per name stays).
 *
 * <p>Needs {@code curator-framework} on the class path (an optional dependency of this module) and a started
 * client. Each call runs synchronously on the caller's thread, with the client's retry policy; a ZooKeeper failure
 * is a ShedLock {@code LockException} naming the operation.
 *
 * <p>Thread-safety: thread-safe; one provider may serve any number of threads and lock names.
 */
public final class ZookeeperFencedLockProvider implements ExtensibleLockProvider {

    private final String basePath;
    private final LockNodes nodes;

    /**
     * @param client a Curator client (started before the first {@code lock}); its session does not bound the locks
     * @param basePath the absolute path under which the lock nodes live, e.g. {@code /shedlock-fenced}; not the root
     * @throws IllegalArgumentException if {@code client} is null, or {@code basePath} is null, not absolute, the root,
     *     or not a valid ZooKeeper path
     */
    public ZookeeperFencedLockProvider(CuratorFramework client, String basePath) {
        if (client == null) {
            throw new IllegalArgumentException("client must not be null");
        }
        if (basePath == null || !basePath.startsWith("/")) {
            throw new IllegalArgumentException(
                    "basePath must be an absolute ZooKeeper path (starting with '/'), got " + quoted(basePath));
        }
        if (basePath.equals("/")) {
            throw new IllegalArgumentException(
                    "basePath must be a node below the root (the provider rewrites its data), got '/'");
        }
        try {
            PathUtils.validatePath(basePath);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("basePath is not a valid ZooKeeper path: " + e.getMessage(), e);
        }
        this.basePath = basePath;
        this.nodes = new LockNodes(client, basePath);
    }

    /**
     * Takes the lock if no other holder's is valid; see the class description for the steps.
     *
     * @param lockConfiguration the lock's name and durations (its {@code createdAt} is not used: the server's clock
     *     decides)
     * @return a {@link FencedSimpleLock}, or empty if the lock is held by another holder (in this process or another)
     * @throws IllegalArgumentException if the configuration is null, its name blank or not usable as a node name, its
     *     {@code lockAtMostFor} zero or less, or its {@code lockAtLeastFor} negative
     * @throws net.javacrumbs.shedlock.support.LockException if ZooKeeper fails
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration lockConfiguration) {
        String name = LockRequests.check(lockConfiguration);
        String path = pathOf(name);
        long forMillis = LockRequests.millis(lockConfiguration.getLockAtMostFor());
        long leastMillis = LockRequests.millis(lockConfiguration.getLockAtLeastFor());
        Optional<LockNodes.Read> current = nodes.read(path);
        Optional<Stat> taken;
        if (current.isEmpty()) {
            taken = nodes.create(path, LockNode.grant(forMillis));
        } else {
            Stat stat = current.get().stat();
            long lockUntil = current.get().node().lockUntil(stat);
            // The server's time is at least the last write's mtime: only a lock held past it needs the clock read.
            if (lockUntil > stat.getMtime() && nodes.serverNow() < lockUntil) {
                return Optional.empty();
            }
            taken = nodes.write(path, LockNode.grant(forMillis), stat.getVersion());
        }
        if (taken.isEmpty()) {
            return Optional.empty();
        }
        Stat stat = taken.get();
        HeldToken held = FencedLocks.push(name, stat.getMzxid());
        return Optional.of(new ZookeeperLock(held, nodes, path, stat, forMillis, leastMillis));
    }

    private String pathOf(String name) {
        if (name.contains("/") || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("lock name must be usable as one ZooKeeper node name (no '/', not '.'"
                    + " or '..'), got '" + name + "'");
        }
        String path = basePath + "/" + name;
        try {
            PathUtils.validatePath(path);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "lock name '" + name + "' is not usable as a ZooKeeper node name: " + e.getMessage(), e);
        }
        return path;
    }

    private static String quoted(String s) {
        return s == null ? "null" : "'" + s + "'";
    }

    @Override
    public String toString() {
        return "ZookeeperFencedLockProvider[" + basePath + "]";
    }
}
