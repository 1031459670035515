package dev.leasehold.recipes;

import org.apache.curator.RetryLoop;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link FencedLeaderSelector}'s own node: recorded from the client view ({@link CuratorTap}) Curator's selector
 * creates it through, read for the fencing token when Curator grants, and deleted early when its work stalls.
 * Package-private: copied with the selector.
 */
final class SelectorNode implements CuratorTap.Observer {

    /** The selector's own category, so that its log lines read as before. */
    private static final Logger log = LoggerFactory.getLogger(FencedLeaderSelector.class);

    /** Our node's namespace-relative path, and its Stat if the create's answer carried it (else null). */
    private record OwnNode(String path, Stat stat) {}

    private final CuratorFramework client;
    private final String leaderPath;
    private final String participantId;
    /** The node Curator's last create returned: ours, since only our selector uses this view. */
    private volatile OwnNode ownNode;

    SelectorNode(CuratorFramework client, String leaderPath, String participantId) {
        this.client = client;
        this.leaderPath = leaderPath;
        this.participantId = participantId;
    }

    @Override
    public void answered(CuratorEvent event) {
        // the mutex creates its node in the foreground: see created()
    }

    @Override
    public void created(String path, Stat stat) {
        ownNode = new OwnNode(path, stat);
    }

    /**
     * On the selector's own thread, inside Curator's takeLeadership: the token of our node, from the create's Stat (no
     * round trip); else our node's Stat read (one round trip); else, had the create not been seen, the election
     * listed and its lowest node verified (two round trips). Reads are retried by the client's retry policy.
     */
    ElectionNodes.Read readToken() throws Exception {
        OwnNode ours = ownNode;
        return ours != null && ours.stat() != null
                ? ElectionNodes.ownSelectorToken(client, ours.path(), ours.stat(), participantId)
                : RetryLoop.callWithRetry(
                        client.getZookeeperClient(),
                        () -> ours != null
                                ? ElectionNodes.readOwnSelectorToken(client, ours.path(), participantId)
                                : ElectionNodes.readSelectorToken(client, leaderPath, participantId));
    }

    /**
     * Never blocks. Deletes the node of a stalled grant in the background (guaranteed), so that the next participant
     * leads even if the work ignores the interrupt. Curator's own delete, when the work returns, then finds no node,
     * which it ignores.
     */
    void deleteStalled(FencingToken token) {
        try {
            client.usingNamespace(null)
                    .delete()
                    .guaranteed()
                    .inBackground((c, event) -> log.debug(
                            "[{}] stalled node {} deleted: {}", participantId, event.getPath(), event.getResultCode()))
                    .forPath(token.path());
        } catch (Exception e) {
            log.warn(
                    "[{}] could not delete the stalled node {}; it goes when the work returns",
                    participantId,
                    token.path(),
                    e);
        }
    }
}
