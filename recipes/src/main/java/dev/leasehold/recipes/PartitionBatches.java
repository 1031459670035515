package dev.leasehold.recipes;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.curator.RetryLoop;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nodes of many partitions in one request: a rebalance's creates in one {@code multi}, its checks in one read
 * {@code multi}, its deletes in one {@code multi} (each cut into chunks that stay far below ZooKeeper's packet limit,
 * {@code jute.maxbuffer}, 1 MB by default). Package-private: copied with the recipe.
 *
 * <p>What ZooKeeper promises and the recipe relies on (checked by {@code PartitionBatchesTest}):
 * <ul>
 *   <li>A multi is one transaction: all its creates or none. Every node it creates has the <em>same</em> czxid (the
 *       transaction's zxid), so the tokens of partitions taken together are equal; the tokens of one partition still
 *       strictly increase across owners (a later owner's node is created by a later transaction). A token is only
 *       ever compared with tokens of its own partition (one fenced resource per partition).</li>
 *   <li>A failed multi names nothing but the first failing operation's error; every other operation is undone. A
 *       sequential create cannot fail with NodeExists; it fails with NoNode when the partition's container parent is
 *       missing (never created, or reaped when it was empty): the parents are created (one multi, or one by one if
 *       that fails too: NodeExists when another member was first) and the multi sent again; after three tries, or on
 *       any other error, the nodes are created one by one.</li>
 *   <li>A create's answer in a multi carries the path, not the Stat: the czxids and owners are read after it in one
 *       read multi ({@code getData} of each node: a read multi answers each operation on its own, an error included).
 *       czxid and owner never change for a node.</li>
 *   <li>A multi whose answer was lost may have been applied and is sent again by Curator's retry: the second send
 *       leaves a second node of ours in each partition. Our nodes carry this instance's prefix, so a check knows them
 *       and deletes them ({@link PartitionNodes#look}).</li>
 * </ul>
 *
 * <p>Thread-safety: stateless apart from what it learned of the server; the calls block on the network (the recipe's
 * thread only).
 */
final class PartitionBatches {

    private static final Logger log = LoggerFactory.getLogger(FencedPartitions.class);

    /** At most this many operations in one multi. */
    static final int MAX_OPS = 250;

    /** At most about this many bytes in one multi's request: a quarter of jute.maxbuffer's default. */
    static final int MAX_BYTES = 256 * 1024;

    /** What an operation costs beyond its path and data: header, ACL, lengths. */
    private static final int OP_OVERHEAD = 96;

    private final CuratorFramework client;
    private final PartitionNodes zk;
    /** {@code false} once the server refused a read multi (ZooKeeper before 3.6): then reads go one by one. */
    private volatile boolean readMultiWorks = true;

    PartitionBatches(CuratorFramework client, PartitionNodes zk) {
        this.client = client;
        this.zk = zk;
    }

    /**
     * Creates our nodes of {@code partitions}: one multi per chunk, then one read multi per chunk for their czxids and
     * owners.
     *
     * @return partition -> our node; a partition whose node was gone at once (its session ended) is left out
     */
    Map<Integer, PartitionNodes.Own> createLeases(Collection<Integer> partitions, String memberId) throws Exception {
        byte[] data = PartitionNodes.bytes(memberId);
        Map<Integer, PartitionNodes.Own> created = new TreeMap<>();
        for (List<Integer> chunk :
                chunks(new ArrayList<>(partitions), zk.newLeasePath(0).length() + data.length)) {
            created.putAll(createChunk(chunk, data, memberId));
        }
        return created;
    }

    private Map<Integer, PartitionNodes.Own> createChunk(List<Integer> chunk, byte[] data, String memberId)
            throws Exception {
        for (int attempt = 0; attempt < 3; attempt++) {
            List<CuratorOp> ops = new ArrayList<>();
            for (int p : chunk) {
                ops.add(client.transactionOp()
                        .create()
                        .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                        .forPath(zk.newLeasePath(p), data));
            }
            List<CuratorTransactionResult> results;
            try {
                results = client.transaction().forOperations(ops);
            } catch (KeeperException.NoNodeException e) {
                ensureParents(chunk);
                continue;
            } catch (KeeperException e) {
                if (connectionTrouble(e)) {
                    throw e;
                }
                log.debug("a multi of {} creates failed ({}): one by one", chunk.size(), e.code());
                break;
            }
            Map<Integer, String> paths = new TreeMap<>();
            for (int i = 0; i < chunk.size(); i++) {
                String path = results.get(i).getResultPath();
                if (path == null || !path.startsWith(zk.newLeasePath(chunk.get(i)))) {
                    throw new IllegalStateException(
                            "a multi answered " + path + " for " + zk.newLeasePath(chunk.get(i)));
                }
                paths.put(chunk.get(i), path);
            }
            return stats(paths);
        }
        Map<Integer, PartitionNodes.Own> created = new TreeMap<>();
        for (int p : chunk) {
            created.put(p, zk.createLease(p, memberId));
        }
        return created;
    }

    /** The czxid and owner of each node: one read multi per chunk. */
    private Map<Integer, PartitionNodes.Own> stats(Map<Integer, String> paths) throws Exception {
        Map<Integer, PartitionNodes.Own> owns = new TreeMap<>();
        List<Integer> order = new ArrayList<>(paths.keySet());
        List<Op> ops = new ArrayList<>();
        for (int p : order) {
            ops.add(Op.getData(ElectionNodes.fullPath(client, paths.get(p))));
        }
        List<OpResult> results = read(ops);
        for (int i = 0; i < order.size(); i++) {
            int p = order.get(i);
            Stat stat =
                    results == null ? client.checkExists().forPath(paths.get(p)) : stat(results.get(i), paths.get(p));
            if (stat != null) {
                owns.put(p, new PartitionNodes.Own(paths.get(p), stat.getCzxid(), stat.getEphemeralOwner()));
            }
        }
        return owns;
    }

    private static Stat stat(OpResult result, String path) throws KeeperException {
        if (result instanceof OpResult.GetDataResult data) {
            return data.getStat();
        }
        int code = ((OpResult.ErrorResult) result).getErr();
        if (code == KeeperException.Code.NONODE.intValue()) {
            return null;
        }
        throw KeeperException.create(KeeperException.Code.get(code), path);
    }

    /** Creates the missing container parents of {@code chunk}'s partitions: one read, then one multi. */
    void ensureParents(List<Integer> chunk) throws Exception {
        List<Op> ops = new ArrayList<>();
        for (int p : chunk) {
            ops.add(Op.getChildren(ElectionNodes.fullPath(client, zk.partitionPath(p))));
        }
        List<OpResult> results = read(ops);
        List<String> missing = new ArrayList<>();
        for (int i = 0; i < chunk.size(); i++) {
            String parent = zk.partitionPath(chunk.get(i));
            boolean absent = results == null
                    ? client.checkExists().forPath(parent) == null
                    : results.get(i) instanceof OpResult.ErrorResult error
                            && error.getErr() == KeeperException.Code.NONODE.intValue();
            if (absent) {
                missing.add(parent);
            }
        }
        createParents(missing);
    }

    /**
     * Creates container nodes at {@code parents}: one multi; if it fails (NodeExists: another member created one
     * first; NoNode: the partitions' own parent is missing, created then and the multi tried once more), one by one,
     * a node that exists already counting as created.
     */
    void createParents(List<String> parents) throws Exception {
        if (parents.isEmpty()) {
            return;
        }
        for (int attempt = 0; attempt < 2; attempt++) {
            List<CuratorOp> ops = new ArrayList<>();
            for (String parent : parents) {
                ops.add(client.transactionOp()
                        .create()
                        .withMode(CreateMode.CONTAINER)
                        .forPath(parent));
            }
            try {
                client.transaction().forOperations(ops);
                return;
            } catch (KeeperException.NoNodeException e) {
                createContainer(zk.partitionsPath());
            } catch (KeeperException e) {
                if (connectionTrouble(e)) {
                    throw e;
                }
                log.debug("a multi of {} parents failed ({}): one by one", parents.size(), e.code());
                break;
            }
        }
        for (String parent : parents) {
            createContainer(parent);
        }
    }

    private void createContainer(String path) throws Exception {
        try {
            client.create()
                    .creatingParentContainersIfNeeded()
                    .withMode(CreateMode.CONTAINER)
                    .forPath(path);
        } catch (KeeperException.NodeExistsException e) {
            // another member was first: what we wanted
        }
    }

    /**
     * Checks our nodes of many partitions together: one read multi per chunk for their children, then, for each node
     * that waits, an exists watch on the node just below it (as {@link PartitionNodes#check}). Duplicates of our
     * nodes are deleted in one multi.
     *
     * @return partition -> what its check found, in partition order
     */
    Map<Integer, PartitionNodes.Check> checkAll(Map<Integer, PartitionNodes.Own> nodes, CuratorWatcher watcher)
            throws Exception {
        Map<Integer, PartitionNodes.Check> checks = new TreeMap<>();
        List<Integer> order = new ArrayList<>(new TreeMap<>(nodes).keySet());
        List<Op> ops = new ArrayList<>();
        for (int p : order) {
            ops.add(Op.getChildren(ElectionNodes.fullPath(client, zk.partitionPath(p))));
        }
        List<OpResult> results = read(ops);
        if (results == null) {
            for (int p : order) {
                checks.put(p, zk.check(p, nodes.get(p), watcher));
            }
            return checks;
        }
        List<String> duplicates = new ArrayList<>();
        for (int i = 0; i < order.size(); i++) {
            int p = order.get(i);
            String parent = zk.partitionPath(p);
            OpResult result = results.get(i);
            if (result instanceof OpResult.ErrorResult error) {
                if (error.getErr() != KeeperException.Code.NONODE.intValue()) {
                    throw KeeperException.create(KeeperException.Code.get(error.getErr()), parent);
                }
                checks.put(p, new PartitionNodes.Check(false, null, true));
                continue;
            }
            List<String> children = ((OpResult.GetChildrenResult) result).getChildren();
            PartitionNodes.Look look =
                    zk.look(ZKPaths.getNodeFromPath(nodes.get(p).path()), children);
            look.duplicates().forEach(d -> duplicates.add(ZKPaths.makePath(parent, d)));
            checks.put(p, look.check());
        }
        deleteNodes(duplicates);
        for (Map.Entry<Integer, PartitionNodes.Check> entry : checks.entrySet()) {
            PartitionNodes.Check check = entry.getValue();
            if (check.gone() || check.holds()) {
                continue;
            }
            int p = entry.getKey();
            String predecessor = ZKPaths.makePath(zk.partitionPath(p), check.predecessor());
            if (client.checkExists().usingWatcher(watcher).forPath(predecessor) == null) {
                entry.setValue(zk.check(p, nodes.get(p), watcher)); // it left between the two reads: look again
            }
        }
        return checks;
    }

    /** Deletes our nodes: one multi per chunk; one by one (Curator's guaranteed delete) if a multi fails. */
    void deleteNodes(List<String> paths) {
        if (paths.isEmpty()) {
            return;
        }
        for (List<String> chunk : chunks(paths, zk.newLeasePath(0).length() + 16)) {
            try {
                List<CuratorOp> ops = new ArrayList<>();
                for (String path : chunk) {
                    ops.add(client.transactionOp().delete().forPath(path));
                }
                client.transaction().forOperations(ops);
            } catch (Exception e) { // NoNode (one went with its session, or was deleted), connection trouble, ...
                log.debug("a multi of {} deletes failed ({}): one by one", chunk.size(), e.toString());
                for (String path : chunk) {
                    try {
                        zk.deleteNode(path);
                    } catch (RuntimeException single) {
                        log.warn("{}", single.getMessage());
                    }
                }
            }
        }
    }

    /** A read multi, retried by Curator on connection loss; {@code null} if the server has no read multi. */
    private List<OpResult> read(List<Op> ops) throws Exception {
        if (!readMultiWorks) {
            return null;
        }
        List<OpResult> results = new ArrayList<>();
        int estimate = 0;
        for (Op op : ops) {
            estimate = Math.max(estimate, op.getPath().getBytes(StandardCharsets.UTF_8).length);
        }
        try {
            for (List<Op> chunk : chunks(ops, estimate)) {
                results.addAll(RetryLoop.callWithRetry(
                        client.getZookeeperClient(),
                        () -> client.getZookeeperClient().getZooKeeper().multi(chunk)));
            }
        } catch (KeeperException.UnimplementedException e) {
            log.warn("the ZooKeeper server has no read multi (before 3.6): reading one by one");
            readMultiWorks = false;
            return null;
        }
        return results;
    }

    /** Cuts {@code items} into chunks of at most {@link #MAX_OPS} and about {@link #MAX_BYTES} each. */
    static <T> List<List<T>> chunks(List<T> items, int bytesPerItem) {
        int perChunk = Math.max(1, Math.min(MAX_OPS, MAX_BYTES / (bytesPerItem + OP_OVERHEAD)));
        List<List<T>> chunks = new ArrayList<>();
        for (int from = 0; from < items.size(); from += perChunk) {
            chunks.add(items.subList(from, Math.min(items.size(), from + perChunk)));
        }
        return chunks;
    }

    static boolean connectionTrouble(KeeperException e) {
        return e instanceof KeeperException.ConnectionLossException
                || e instanceof KeeperException.SessionExpiredException
                || e instanceof KeeperException.OperationTimeoutException
                || e instanceof KeeperException.SessionMovedException;
    }
}
