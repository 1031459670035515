package dev.leasehold.shedlock;

import java.util.Optional;
import net.javacrumbs.shedlock.support.LockException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The ZooKeeper operations of {@link ZookeeperFencedLockProvider}, each one synchronous Curator call on the caller's
 * thread: read a lock node, create it, write it under a version check, and read the server's clock. A lost race (the
 * node exists, a version moved on, the node was deleted) is a value; anything else is a {@link LockException} that
 * names the operation, the cause attached. Curator's retry policy applies to each call: a write whose answer was lost
 * and that is retried finds its own write as a lost race, which leaves the lock held by nobody until it expires
 * (never two holders).
 *
 * <p>Thread-safety: thread-safe (Curator's client is).
 */
final class LockNodes {

    /** A node as read: its data and its Stat. */
    record Read(LockNode node, Stat stat) {}

    private static final byte[] EMPTY = new byte[0];

    private final CuratorFramework client;
    private final String basePath;

    LockNodes(CuratorFramework client, String basePath) {
        this.client = client;
        this.basePath = basePath;
    }

    /** @return the node at {@code path}, or empty if there is none */
    Optional<Read> read(String path) {
        Stat stat = new Stat();
        byte[] data;
        try {
            data = client.getData().storingStatIn(stat).forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        } catch (Exception e) {
            throw failed("reading lock node " + path, e);
        }
        try {
            return Optional.of(new Read(LockNode.parse(data), stat));
        } catch (IllegalArgumentException e) {
            throw new LockException("lock node " + path + " holds data ZookeeperFencedLockProvider did not write: "
                    + e.getMessage() + ". Is another lock provider (ShedLock's own ZooKeeper provider?) using the same"
                    + " path? Give each provider a basePath of its own.");
        }
    }

    /** @return the new node's Stat, or empty if the node exists (someone else created it first) */
    Optional<Stat> create(String path, LockNode node) {
        Stat stat = new Stat();
        try {
            client.create()
                    .storingStatIn(stat)
                    .creatingParentsIfNeeded()
                    .withMode(CreateMode.PERSISTENT)
                    .forPath(path, node.bytes());
            return Optional.of(stat);
        } catch (KeeperException.NodeExistsException e) {
            return Optional.empty();
        } catch (Exception e) {
            throw failed("creating lock node " + path, e);
        }
    }

    /** @return the node's Stat after the write, or empty if its version is no longer {@code version} (or it is gone) */
    Optional<Stat> write(String path, LockNode node, int version) {
        try {
            return Optional.of(client.setData().withVersion(version).forPath(path, node.bytes()));
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
            return Optional.empty();
        } catch (Exception e) {
            throw failed("writing lock node " + path + " at version " + version, e);
        }
    }

    /**
     * The ZooKeeper server's clock: the {@code mtime} of a write to the base path's own node (its data stays empty).
     * Only a write carries a server time; a contender needs one only when the lock it read may still be held.
     */
    long serverNow() {
        try {
            return client.setData().forPath(basePath, EMPTY).getMtime();
        } catch (KeeperException.NoNodeException e) {
            return createBaseThenNow();
        } catch (Exception e) {
            throw failed("reading the ZooKeeper server's time (an empty write to " + basePath + ")", e);
        }
    }

    private long createBaseThenNow() {
        try {
            client.create()
                    .creatingParentsIfNeeded()
                    .withMode(CreateMode.PERSISTENT)
                    .forPath(basePath, EMPTY);
        } catch (KeeperException.NodeExistsException e) {
            // created meanwhile: fine
        } catch (Exception e) {
            throw failed("creating the base path " + basePath, e);
        }
        try {
            return client.setData().forPath(basePath, EMPTY).getMtime();
        } catch (Exception e) {
            throw failed("reading the ZooKeeper server's time (an empty write to " + basePath + ")", e);
        }
    }

    private static LockException failed(String operation, Exception e) {
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            return new LockException(operation + " was interrupted", e);
        }
        return new LockException(operation + " failed on ZooKeeper: " + e, e);
    }
}
