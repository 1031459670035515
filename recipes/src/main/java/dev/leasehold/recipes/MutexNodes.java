package dev.leasehold.recipes;

import java.nio.charset.StandardCharsets;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.StandardLockInternalsDriver;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link FencedMutex}'s lock nodes: Curator's {@code InterProcessMutex} creates them through this driver (Curator's
 * own supported hook, {@code InterProcessMutex(client, path, driver)}), which is Curator's standard driver except
 * that the create keeps the Stat its {@code create2} answer carries anyway, and stores the participant id as the
 * node's data. The request on the wire is the same as plain Curator's: the token costs no round trip. Package-private:
 * copied with the mutex.
 *
 * <p>Curator's mutex creates on the acquiring thread, once per attempt, so the last node a thread created is the node
 * its acquire was granted with.
 *
 * <p>Thread-safety: thread-safe; what a create returned is kept per thread.
 */
final class MutexNodes extends StandardLockInternalsDriver {

    /** The mutex's own category, so that its log lines read as one. */
    private static final Logger log = LoggerFactory.getLogger(FencedMutex.class);

    /**
     * A node this thread created: its namespace-relative path, as Curator returned it, and its Stat if the create's
     * answer carried it (else {@code null}: Curator recovered a protected create after a connection loss).
     */
    record Created(String path, Stat stat) {}

    private final String participantId;
    private final byte[] data;
    private final ThreadLocal<Created> lastCreated = new ThreadLocal<>();

    MutexNodes(String participantId) {
        this.participantId = participantId;
        this.data = participantId.getBytes(StandardCharsets.UTF_8);
    }

    /** Curator's create, as its standard driver makes it (protected, ephemeral-sequential, container parents). */
    @Override
    public String createsTheLock(CuratorFramework client, String path, byte[] lockNodeBytes) throws Exception {
        lastCreated.remove();
        Stat stat = new Stat();
        String ours = client.create()
                .storingStatIn(stat)
                .creatingParentContainersIfNeeded()
                .withProtection()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(path, data);
        lastCreated.set(new Created(ours, stat.getCzxid() != 0 ? stat : null));
        return ours;
    }

    /** The node the calling thread created last, forgotten once taken; {@code null} if none. */
    Created takeCreated() {
        Created created = lastCreated.get();
        lastCreated.remove();
        return created;
    }

    /**
     * The token of a granted node. Curator's mutex granted it only after listing it as the lowest child, and a lower
     * sequence is never created later; czxid and owner never change for a node. What is left to check is that its
     * owner is the client's current session. From the create's Stat: no round trip; {@code read} (or no Stat seen):
     * the node's Stat is read, one round trip, which also proves it still exists.
     */
    ElectionNodes.Read token(CuratorFramework client, Created created, boolean read) throws Exception {
        if (created.stat() != null && !read) {
            return ElectionNodes.ownSelectorToken(client, created.path(), created.stat(), participantId);
        }
        return ElectionNodes.readOwnSelectorToken(client, created.path(), participantId);
    }

    /**
     * Never blocks. Deletes a node in the background, guaranteed: the node of a hold that ended without its holder (a
     * stall, a close from another thread), so that the next waiter is granted even while the holder's work still runs
     * (Curator's own delete, when the holder releases, then finds no node, which it ignores); or a node whose release
     * failed while ZooKeeper was unreachable. {@code deleted} runs once the node is gone (deleted or not found).
     *
     * @param fullPath the node's full path (with the client's namespace)
     */
    void deleteInBackground(CuratorFramework client, String fullPath, Runnable deleted) {
        try {
            client.usingNamespace(null)
                    .delete()
                    .guaranteed()
                    .inBackground((c, event) -> {
                        log.debug("[{}] node {} deleted: {}", participantId, event.getPath(), event.getResultCode());
                        if (event.getResultCode() == KeeperException.Code.OK.intValue()
                                || event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
                            deleted.run();
                        }
                    })
                    .forPath(fullPath);
        } catch (Exception e) {
            log.warn(
                    "[{}] could not delete the node {}; it goes when the holder releases or the session ends",
                    participantId,
                    fullPath,
                    e);
        }
    }
}
