package dev.leasehold.recipes;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions a {@link FencedPartitions} member takes part in, one at a time: its node of each, the check that
 * grants a partition's token, the release that withdraws it, and the listener's calls. Package-private: copied with
 * the recipe.
 *
 * <p>Thread-safety: the recipe's own thread only (the tokens it grants are in the shared {@link PartitionGrants}).
 */
final class HeldPartitions {

    private static final Logger log = LoggerFactory.getLogger(FencedPartitions.class);

    /** How long released nodes may wait for the listener's other {@code lost} calls before they are deleted. */
    static final long FLUSH_AFTER_NANOS = 50_000_000L;

    private final CuratorFramework client;
    private final PartitionNodes zk;
    private final String memberId;
    private final FencedPartitionListener listener;
    private final PartitionGrants grants;
    private final CuratorWatcher leaseWatcher;
    /** {@code true} while the recipe is started (a grant is made only then). */
    private final BooleanSupplier started;
    /** Queues the recipe's next step. */
    private final Runnable queueStep;
    /** The progress deadline of each partition we hold. */
    private final PartitionProgress progress;
    /** Our node of each partition we take part in. */
    private final Map<Integer, PartitionNodes.Own> nodes = new HashMap<>();

    HeldPartitions(
            CuratorFramework client,
            PartitionNodes zk,
            String memberId,
            FencedPartitionListener listener,
            PartitionGrants grants,
            CuratorWatcher leaseWatcher,
            BooleanSupplier started,
            Runnable queueStep,
            PartitionProgress progress) {
        this.client = client;
        this.zk = zk;
        this.memberId = memberId;
        this.listener = listener;
        this.grants = grants;
        this.leaseWatcher = leaseWatcher;
        this.started = started;
        this.queueStep = queueStep;
        this.progress = progress;
    }

    /** @return the partitions we have a node of, a copy */
    List<Integer> partitions() {
        return new ArrayList<>(nodes.keySet());
    }

    boolean hasNode(int p) {
        return nodes.containsKey(p);
    }

    /**
     * Forgets every node of a session other than {@code current} (they die with it). A node of {@code current} stays
     * ours: a step the session changed under creates the rest of its nodes in the new session, and a node forgotten
     * while its session lives would stand for ever in front of its partition's later nodes.
     */
    void forgetNodesNotOf(long current) {
        nodes.values().removeIf(own -> own.owner() != current);
    }

    /** Tells the listener of tokens withdrawn on other threads (SUSPENDED, LOST), in the order they were. */
    void tellLosses() {
        for (PartitionGrants.Loss loss = grants.nextLoss(); loss != null; loss = grants.nextLoss()) {
            PartitionGrants.Loss told = loss;
            progress.notLeading(told.partition(), told.token());
            call(() -> listener.lost(told.partition(), told.token(), told.cause()), told.partition(), told.token());
        }
    }

    /**
     * Creates our nodes of {@code partitions} together (one multi per chunk, see {@link PartitionBatches}), then
     * checks them together.
     */
    void joinAll(Collection<Integer> partitions) throws Exception {
        if (partitions.isEmpty()) {
            return;
        }
        Map<Integer, PartitionNodes.Own> created = zk.batch().createLeases(partitions, memberId);
        nodes.putAll(created);
        if (created.size() < partitions.size()) {
            queueStep.run(); // a node went at once: created again on the next step
        }
        acquireAll(created.keySet());
    }

    /** Checks our nodes of {@code partitions} together: one read per chunk. Grants a partition if our node is the
     * lowest and ours, else waits on its predecessor. */
    void acquireAll(Collection<Integer> partitions) throws Exception {
        Map<Integer, PartitionNodes.Own> mine = new TreeMap<>();
        for (int p : partitions) {
            if (nodes.containsKey(p)) {
                mine.put(p, nodes.get(p));
            }
        }
        if (mine.isEmpty()) {
            return;
        }
        long before = grants.generation();
        Map<Integer, PartitionNodes.Check> checks = zk.batch().checkAll(mine, leaseWatcher);
        for (Map.Entry<Integer, PartitionNodes.Check> entry : checks.entrySet()) {
            if (!started.getAsBoolean()) {
                return;
            }
            settle(entry.getKey(), entry.getValue(), before);
        }
    }

    /** Acts on a check of our node of {@code p} made after {@code before} was read from the grants. */
    private void settle(int p, PartitionNodes.Check check, long before) throws Exception {
        PartitionNodes.Own own = nodes.get(p);
        if (check.gone()) {
            withdraw(p, LossCause.NODE_GONE);
            nodes.remove(p);
            queueStep.run(); // created again on the next step
            return;
        }
        if (!check.holds() || grants.holds(p)) {
            return;
        }
        Stat stat = new Stat();
        stat.setCzxid(own.czxid());
        stat.setEphemeralOwner(own.owner());
        ElectionNodes.Read read = ElectionNodes.ownSelectorToken(client, own.path(), stat, memberId);
        if (!read.isGranted()) {
            log.warn("[{}] partition {}: no token: {}", memberId, p, read.refusal());
            nodes.remove(p);
            zk.deleteLease(own);
            queueStep.run();
            return;
        }
        if (!started.getAsBoolean() || !grants.grant(p, read.token(), own.owner(), before)) {
            return; // withdrawn (SUSPENDED, LOST) or closed while we checked: the next step checks again
        }
        progress.leading(p, read.token()); // its clock starts at the grant (a withdrawal since: see notLeading)
        log.debug("[{}] partition {} acquired with {}", memberId, p, read.token());
        call(() -> listener.acquired(p, read.token()), p, read.token());
    }

    /** Withdraws the token of {@code p} (if held), tells the listener, and only then deletes our node. */
    void release(int p, LossCause cause) {
        withdraw(p, cause);
        PartitionNodes.Own own = nodes.remove(p);
        if (own != null && own.owner() == ElectionNodes.sessionId(client)) {
            try {
                zk.deleteLease(own);
            } catch (RuntimeException e) {
                log.warn("[{}] partition {}: {}", memberId, p, e.getMessage());
            }
        }
    }

    void releaseAll(LossCause cause) {
        releaseAll(partitions(), cause);
    }

    /**
     * Releases {@code partitions} as {@link #release} does each (the token withdrawn and the listener told before the
     * node is deleted), deleting the nodes together: one multi per chunk, sent once every loss was told, or sooner
     * when the listener has taken {@link #FLUSH_AFTER_NANOS} since the first node was ready to go (so that a slow
     * {@code lost} does not hold the other partitions back for long).
     */
    void releaseAll(Collection<Integer> partitions, LossCause cause) {
        List<String> ready = new ArrayList<>();
        long since = 0;
        for (int p : partitions) {
            withdraw(p, cause);
            PartitionNodes.Own own = nodes.remove(p);
            if (own != null && own.owner() == ElectionNodes.sessionId(client)) {
                if (ready.isEmpty()) {
                    since = System.nanoTime();
                }
                ready.add(own.path());
            }
            if (!ready.isEmpty() && System.nanoTime() - since > FLUSH_AFTER_NANOS) {
                zk.batch().deleteNodes(ready);
                ready.clear();
            }
        }
        zk.batch().deleteNodes(ready);
    }

    private void withdraw(int p, LossCause cause) {
        FencingToken token = grants.withdraw(p);
        if (token != null) {
            progress.notLeading(p, token);
            log.debug("[{}] partition {} lost ({}) with {}", memberId, p, cause, token);
            call(() -> listener.lost(p, token, cause), p, token);
        }
    }

    private void call(Runnable call, int partition, FencingToken token) {
        try {
            call.run();
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            log.error("[{}] the listener threw for partition {} ({})", memberId, partition, token, e);
        }
    }
}
