package dev.leasehold.recipes;

import java.io.Closeable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One fenced lease per partition: {@code partitionCount} partitions spread over the live members of a group, each
 * held by at most one member at a time, with a {@link FencingToken} per grant.
 *
 * <p>How it works (the znodes are described in {@link PartitionNodes}):
 * <ol>
 *   <li><b>Membership</b>: each member has an ephemeral node named by its id; a second live member with the same id
 *       is refused at {@link #start()}. Every member watches the members' children: one notification per change.</li>
 *   <li><b>Target</b>: the member with the smallest id computes the next target from the stored one and the live
 *       members ({@link PartitionAssignment}: floor/ceil balance, only what must move moves) and writes it with a
 *       version check. Every member watches it: one notification per change. A join of a fourth member to 3 members
 *       x 12 partitions moves exactly 3. A stored target that is not one of this recipe for our partition count
 *       (crafted or damaged data: every count and index is checked before anything is allocated from it) is logged
 *       at WARN once per version and rewritten by that member; the others keep what they hold until then.</li>
 *   <li><b>Ownership</b>: a member that is targeted for partition p creates its own protected ephemeral-sequential
 *       node under p. The lowest node holds p. The token is that node's czxid, read from the create's answer and
 *       verified as the latch's is: the node is the lowest child and its owner is our current session. A member
 *       that waits watches only the node just below its own.</li>
 *   <li><b>Hand-over</b>: a member targeted away from p withdraws the token, calls {@code lost(p, token, REBALANCED)}
 *       and deletes its node only after that returned. So p moves only after its previous owner's work stopped, or
 *       after the previous owner's session ended (then the fence covers a paused owner). Two members that disagree
 *       about the target can both want p, never both hold it: the partition's nodes decide, not the target.</li>
 * </ol>
 *
 * <p>A membership change wakes each member twice (members, target) plus once per partition it takes over; the
 * requests it costs grow with the partitions that move, not with the partition count.
 *
 * <p>Faults: on LOST every partition is withdrawn at once and {@code lost(p, token, LOST)} told; on SUSPENDED too
 * (cause {@code SUSPENDED}) when the client's error policy treats SUSPENDED as an error (Curator's default). On
 * RECONNECTED every node is checked again: with the same session the same nodes give the same tokens back; with a new
 * session new nodes are created, behind any node the old session left.
 *
 * <p>IMPORTANT: {@link #owned()} is a belief, not a guarantee: a paused member believes it holds its partitions until
 * it runs again. Only the resource's token check, one resource per partition, stops a late write.
 *
 * <p>Thread-safety: thread-safe. Listener calls run on the recipe's own thread (ended when idle), never on a
 * ZooKeeper or Curator thread and never under a lock.
 *
 * <p>Why one file of more than 300 lines: the recipe is meant to be copied as its own files plus the token type, so
 * its lifecycle and its one reconciling step stay here; the work on one partition (our node of it, its grant, its
 * release and the listener's calls) is in {@code HeldPartitions}, the target's reads and version-checked writes (the
 * rebalance and the stall hand-off) in {@code PartitionTarget}.
 */
public final class FencedPartitions implements Closeable {

    /** How long {@link #close()} waits for listeners and the release of the nodes. */
    public static final long CLOSE_WAIT_MILLIS = 10_000;

    private static final Logger log = LoggerFactory.getLogger(FencedPartitions.class);

    private enum Lifecycle {
        LATENT,
        STARTED,
        CLOSED
    }

    private final CuratorFramework client;
    private final String path;
    private final String memberId;
    private final int partitionCount;
    private final PartitionNodes zk;
    /** Our node of each partition, its grant and the listener's calls; the recipe's thread only. */
    private final HeldPartitions held;
    /** Stored in our member node beside the id: tells our own node from a duplicate's. */
    private final String instance = java.util.UUID.randomUUID().toString();

    private final RecipeThread events;
    private final AtomicReference<Lifecycle> lifecycle = new AtomicReference<>(Lifecycle.LATENT);

    private final PartitionGrants grants = new PartitionGrants();
    /** The progress deadline of each held partition (off unless set). */
    private final PartitionProgress progress;

    private final PartitionListeners listeners;

    // What woke us; set on ZooKeeper's and Curator's threads, consumed on the recipe's thread.
    private final AtomicBoolean membersChanged = new AtomicBoolean(true);
    private final AtomicBoolean targetChanged = new AtomicBoolean(true);
    private final AtomicBoolean checkAll = new AtomicBoolean(true);
    private final Set<Integer> partitionsChanged = ConcurrentHashMap.newKeySet();

    private final AtomicBoolean stepQueued = new AtomicBoolean();
    private final AtomicLong retries = new AtomicLong();

    // The recipe thread's own state.
    private volatile long session;
    private boolean memberNode;
    /** The live members and the stored target as last read, and the target's writes. */
    private final PartitionTarget target;
    /** The target version the listeners were last told of ({@code rebalanced}). */
    private int toldVersion = -1;

    private final Object startLock = new Object();
    private boolean closing; // guarded by startLock

    // Connection-state events (type None) reach watchers too: the connection-state listener handles those.
    private final CuratorWatcher membersWatcher = event -> {
        if (event.getType() != Watcher.Event.EventType.None) {
            wake(membersChanged);
        }
    };
    private final CuratorWatcher targetWatcher = event -> {
        if (event.getType() != Watcher.Event.EventType.None) {
            wake(targetChanged);
        }
    };
    private final CuratorWatcher leaseWatcher = this::onLeaseEvent;
    private final ConnectionStateListener connectionListener = (c, state) -> onConnectionStateChanged(state);

    /**
     * @param client         a Curator client; it must be started before {@link #start()}
     * @param path           the group's path, e.g. {@code /app/partitions}; every member of the group uses the same
     *                       path and partition count
     * @param memberId       this member's id, unique among the live members: non-blank, at most 200 characters, no
     *                       {@code /} and no control characters
     * @param partitionCount how many partitions: 1 to 10,000
     * @param listener       told of every partition this member acquires and loses, on the recipe's own thread
     * @throws IllegalArgumentException if an argument is not allowed (nothing is written to ZooKeeper)
     */
    public FencedPartitions(
            CuratorFramework client,
            String path,
            String memberId,
            int partitionCount,
            FencedPartitionListener listener) {
        this.client = ElectionNodes.requireArgument(client, "client");
        this.path = ElectionNodes.requireElectionPath(path, "path");
        this.memberId = PartitionNodes.requireMemberId(memberId);
        if (partitionCount < 1 || partitionCount > PartitionAssignment.MAX_PARTITIONS) {
            throw new IllegalArgumentException("partitionCount must be from 1 to " + PartitionAssignment.MAX_PARTITIONS
                    + ", was " + partitionCount);
        }
        this.partitionCount = partitionCount;
        this.listeners = new PartitionListeners(memberId, ElectionNodes.requireArgument(listener, "listener"));
        this.zk = new PartitionNodes(client, path);
        this.progress = new PartitionProgress(partitionCount, memberId, grants, this::queueStep);
        this.held = new HeldPartitions(
                client,
                zk,
                memberId,
                listeners,
                grants,
                leaseWatcher,
                () -> lifecycle.get() == Lifecycle.STARTED,
                this::queueStep,
                progress);
        this.target = new PartitionTarget(zk, memberId, partitionCount, membersWatcher, targetWatcher);
        this.events = new RecipeThread("leasehold-partitions-" + memberId);
    }

    /**
     * Joins the group: creates this member's node (on the calling thread), then acquires partitions on the recipe's
     * thread. A {@link #close()} racing this call wins: then nothing stays behind.
     *
     * @throws IllegalStateException if the client is not started, this instance was started or closed before, a live
     *                               member of the group has the same id, or the group has another partition count
     * @throws Exception             if ZooKeeper could not be reached to create the member node
     */
    public void start() throws Exception {
        ElectionNodes.requireStarted(client);
        if (!lifecycle.compareAndSet(Lifecycle.LATENT, Lifecycle.STARTED)) {
            throw new IllegalStateException("FencedPartitions '" + memberId + "' on " + path + " is " + lifecycle.get()
                    + ": start() may be called once, on an instance that was never closed");
        }
        synchronized (startLock) {
            if (closing) {
                return;
            }
            try {
                Optional<PartitionNodes.Stored> existing = zk.assignment(null);
                if (existing.isPresent()
                        && !existing.get().isMalformed() // the writer overwrites it once we run
                        && existing.get().assignment().partitionCount() != partitionCount) {
                    throw new IllegalStateException("the group at " + path + " has "
                            + existing.get().assignment().partitionCount() + " partitions, this member was given "
                            + partitionCount);
                }
                Optional<Long> other = zk.createMember(memberId, instance);
                if (other.isPresent()) {
                    throw new IllegalStateException(
                            "a live member with id '" + memberId + "' is already in the group at " + path
                                    + " (session 0x" + Long.toHexString(other.get()) + "): member ids must be unique");
                }
            } catch (Exception e) {
                lifecycle.set(Lifecycle.CLOSED);
                closing = true;
                events.shutdown();
                throw e;
            }
            session = ElectionNodes.sessionId(client);
            memberNode = true;
            client.getConnectionStateListenable().addListener(connectionListener);
            queueStep();
        }
    }

    /**
     * Sets a progress deadline per partition: while this member holds a partition, that partition's work must call
     * {@link #progress(int)} at least once per {@code deadline}; if it does not, the member gives that partition up
     * (its other partitions stay). The token is withdrawn, the listener hears {@code lost(p, token, }{@link
     * LossCause#STALLED}{@code )}, and after that call returned our node of p is deleted and p is handed to another
     * live member in the target (keeping the balance: in exchange for one of its partitions if it holds as many as
     * this member), which takes p with a higher token. Alone, this member joins p again at once, with a new node and a
     * higher token. Off by default.
     *
     * <p>As for {@code REBALANCED}, p moves only after {@code lost} returned: on {@code STALLED} interrupt the
     * partition's work and return without waiting for it (it is stuck); the resource's token check refuses its late
     * writes. Choose a deadline well above the longest gap between two {@code progress(p)} calls of healthy work.
     *
     * @param deadline more than 0 and at most one day
     * @throws IllegalArgumentException if {@code deadline} is null, zero, negative or longer than one day
     * @throws IllegalStateException    if this member was already started
     */
    public void setProgressDeadline(Duration deadline) {
        ProgressWatch.requireDeadline(deadline);
        if (lifecycle.get() != Lifecycle.LATENT) {
            throw new IllegalStateException("[" + memberId + "] setProgressDeadline() must be called before start();"
                    + " this member is " + lifecycle.get());
        }
        progress.deadline(deadline);
    }

    /**
     * The progress deadline, if one was set.
     *
     * @return the deadline per partition, empty when off
     */
    public Optional<Duration> progressDeadline() {
        return progress.deadline();
    }

    /**
     * Tells the recipe that the work of {@code partition} advanced. Cheap (an array read and one volatile write: no
     * lock, no I/O): call it from the partition's work loop as often as you like. For a partition this member does
     * not hold it is ignored (each grant starts its own clock).
     *
     * @param partition the partition, from 0 to the partition count - 1
     * @throws IllegalArgumentException if {@code partition} is out of range
     */
    public void progress(int partition) {
        progress.progress(partition);
    }

    /**
     * How long the work of {@code partition} has gone without calling {@link #progress(int)} (counted from the grant
     * if it never did), while this member holds it.
     *
     * @param partition the partition, from 0 to the partition count - 1
     * @return the time since its last progress, empty while this member does not hold it
     * @throws IllegalArgumentException if {@code partition} is out of range
     */
    public Optional<Duration> sinceProgress(int partition) {
        return progress.sinceProgress(partition);
    }

    /**
     * The partitions this member holds now, with their tokens. A belief, not a guarantee: see the class comment.
     *
     * @return a snapshot, partition -> token, in partition order
     */
    public Map<Integer, FencingToken> owned() {
        return Collections.unmodifiableSortedMap(grants.snapshot());
    }

    /**
     * Who holds each partition now, read from ZooKeeper for operators: each partition's lowest node (two reads a
     * partition, no watch). A snapshot: see {@link LeaderInfo}.
     *
     * @return partition -> holder, in partition order; partitions nobody holds are left out
     * @throws IllegalStateException if ZooKeeper could not be read (the cause attached)
     */
    public Map<Integer, LeaderInfo> currentOwners() {
        SortedMap<Integer, LeaderInfo> holders = new TreeMap<>();
        for (int p = 0; p < partitionCount; p++) {
            int partition = p;
            zk.holder(p).ifPresent(holder -> holders.put(partition, holder));
        }
        return Collections.unmodifiableSortedMap(holders);
    }

    /**
     * The stored target, read from ZooKeeper (one read): which member should hold each partition. Who holds a
     * partition is {@link #currentOwners()}; the two differ while a partition moves.
     *
     * @return partition -> member id, in partition order; empty before the first member wrote a target, and while
     *     the stored node is not a target of this recipe (until the member with the smallest id rewrites it)
     * @throws IllegalStateException if ZooKeeper could not be read (the cause attached)
     */
    public Map<Integer, String> currentAssignment() {
        try {
            return zk.assignment(null)
                    .map(s -> s.isMalformed()
                            ? Map.<Integer, String>of()
                            : s.assignment().asMap())
                    .orElse(Map.of());
        } catch (Exception e) {
            throw new IllegalStateException("could not read " + zk.assignmentPath(), e);
        }
    }

    /**
     * Adds a listener, told after the constructor's and those added before, on the recipe's own thread, of every
     * grant, loss and rebalance from now on (meters, say). Add it before {@link #start()} to hear every event.
     *
     * @param listener told of what this member gains and loses
     * @throws IllegalArgumentException if {@code listener} is null
     */
    public void addListener(FencedPartitionListener listener) {
        listeners.add(ElectionNodes.requireArgument(listener, "listener"));
    }

    /** @return the group's path, as given to the constructor */
    public String path() {
        return path;
    }

    /** @return this member's id, as given to the constructor */
    public String memberId() {
        return memberId;
    }

    /** @return the number of partitions, as given to the constructor */
    public int partitionCount() {
        return partitionCount;
    }

    /**
     * Leaves the group: deletes this member's node (so the others start to move its partitions), then, for every
     * partition held, withdraws the token, calls {@code lost(p, token, CLOSED)} and deletes the partition's node only
     * after it returned. Waits for all that up to {@link #CLOSE_WAIT_MILLIS}. Idempotent.
     *
     * <p>Called from a listener, or on a ZooKeeper or Curator thread, it does not wait (that would deadlock): the
     * partitions are released on the recipe's own thread once the running call returned.
     */
    @Override
    public void close() {
        Lifecycle previous = lifecycle.getAndSet(Lifecycle.CLOSED);
        if (previous == Lifecycle.CLOSED) {
            return;
        }
        synchronized (startLock) {
            closing = true;
            client.getConnectionStateListenable().removeListener(connectionListener);
        }
        if (previous == Lifecycle.LATENT) {
            events.shutdown();
            return;
        }
        events.execute(this::leave);
        events.shutdown();
        if (events.isCurrentThread() || ElectionNodes.isZooKeeperOrCuratorThread()) {
            return;
        }
        if (!events.awaitTermination(Duration.ofMillis(CLOSE_WAIT_MILLIS))) {
            log.warn("[{}] close: listeners still running after {} ms", memberId, CLOSE_WAIT_MILLIS);
        }
    }

    // ---- the recipe's thread ---------------------------------------------------------------------------------

    private void leave() {
        held.tellLosses();
        if (memberNode && session == ElectionNodes.sessionId(client)) {
            try {
                zk.deleteMember(memberId);
            } catch (RuntimeException e) {
                log.warn("[{}] close: {}", memberId, e.getMessage());
            }
        }
        held.releaseAll(LossCause.CLOSED);
    }

    private void step() {
        stepQueued.set(false);
        held.tellLosses();
        if (lifecycle.get() != Lifecycle.STARTED || !ElectionNodes.isConnected(client)) {
            return; // disconnected: RECONNECTED queues the next step (a step would block in Curator's retries)
        }
        try {
            reconcile();
            retries.set(0);
        } catch (Exception e) {
            if (lifecycle.get() != Lifecycle.STARTED) {
                return;
            }
            boolean connectionTrouble = e instanceof KeeperException.ConnectionLossException
                    || e instanceof KeeperException.SessionExpiredException
                    || !ElectionNodes.isConnected(client);
            log.warn("[{}] reconcile failed ({}); {}", memberId, e, connectionTrouble ? "again on reconnect" : "retry");
            checkAll.set(true);
            membersChanged.set(true);
            targetChanged.set(true);
            if (!connectionTrouble) {
                long delay = Math.min(2_000, 50L << Math.min(5, retries.getAndIncrement()));
                CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS).execute(this::queueStep);
            }
        }
    }

    private void reconcile() throws Exception {
        long current = ElectionNodes.sessionId(client);
        if (current != session) { // a new session: the old one's nodes are not ours (they die with it)
            withdrawAll(LossCause.LOST); // Curator may tell LOST after the new session is already here
            held.tellLosses();
            held.forgetNodesNotOf(current); // those the last step made in the new session are ours
            memberNode = false;
            session = current;
            checkAll.set(true);
        }
        if (!memberNode && !joinAgain()) {
            return;
        }
        boolean all = checkAll.getAndSet(false);
        if (membersChanged.getAndSet(false) || all) {
            target.readMembers();
        }
        if (targetChanged.getAndSet(false) || all || target.stored() == null) {
            target.readStored();
        }
        if (target.writesTarget()) {
            target.write(); // also over a malformed target, or one of another partition count
        }
        if (target.malformed()) {
            return; // not the writer: what we hold stays as it is until the writer's target (its watch wakes us)
        }
        if (target.stored() != null && target.stored().assignment().partitionCount() != partitionCount) {
            log.error(
                    "[{}] the group at {} has {} partitions, this member {}: holding none",
                    memberId,
                    path,
                    target.stored().assignment().partitionCount(),
                    partitionCount);
            held.releaseAll(LossCause.REBALANCED);
            return;
        }
        for (Integer p : progress.stalled()) {
            target.handOff(p, held);
            progress.handedOff(p);
        }
        PartitionNodes.Stored stored = target.stored();
        SortedSet<Integer> wanted =
                stored == null ? new TreeSet<>() : stored.assignment().partitionsOf(memberId);
        if (stored != null && stored.version() != toldVersion) {
            toldVersion = stored.version();
            int count = stored.assignment().members().size();
            SortedSet<Integer> mine = Collections.unmodifiableSortedSet(new TreeSet<>(wanted));
            try {
                listeners.rebalanced(count, mine);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (RuntimeException | Error e) {
                log.error("[{}] the listener threw for a rebalance", memberId, e);
            }
        }
        List<Integer> unwanted = new ArrayList<>();
        for (Integer p : held.partitions()) {
            if (!wanted.contains(p)) {
                unwanted.add(p);
            }
        }
        held.releaseAll(unwanted, LossCause.REBALANCED);
        Set<Integer> changed = new TreeSet<>(partitionsChanged);
        partitionsChanged.removeAll(changed);
        List<Integer> toCheck = new ArrayList<>();
        List<Integer> toJoin = new ArrayList<>();
        for (Integer p : wanted) {
            if (!held.hasNode(p)) {
                toJoin.add(p);
            } else if (all || changed.contains(p)) { // else its predecessor's watch will tell us
                toCheck.add(p);
            }
        }
        if (lifecycle.get() != Lifecycle.STARTED) {
            return;
        }
        held.acquireAll(toCheck); // one read for all
        held.joinAll(toJoin); // one multi of creates, one read of their Stats, one read of the partitions
    }

    /** After a new session: our member node again, once a node of that id left by the old session is gone. */
    private boolean joinAgain() throws Exception {
        Optional<Long> other = zk.createMember(memberId, instance);
        if (other.isEmpty()) {
            memberNode = true;
            return true;
        }
        log.warn(
                "[{}] a node of id '{}' is still owned by session 0x{} (an old session of ours, or a duplicate): waiting"
                        + " for it to go",
                memberId,
                memberId,
                Long.toHexString(other.get()));
        if (!zk.watchMember(memberId, event -> queueStep())) {
            queueStep();
        }
        return false;
    }

    // ---- ZooKeeper's and Curator's threads: only flags, swaps and queueing --------------------------------------

    private void onConnectionStateChanged(ConnectionState state) {
        switch (state) {
            case SUSPENDED -> {
                if (ElectionNodes.suspendedIsError(client)) {
                    withdrawAll(LossCause.SUSPENDED);
                }
            }
            case LOST -> withdrawAll(LossCause.LOST);
            case RECONNECTED, CONNECTED -> wake(checkAll);
            default -> {}
        }
    }

    /**
     * Every token withdrawn at once, here; the listener told on the recipe's thread before anything else happens
     * there (so a partition's {@code lost} always comes before its next {@code acquired}).
     */
    private void withdrawAll(LossCause cause) {
        int count = grants.withdrawAll(cause, ElectionNodes.sessionId(client), ElectionNodes.isConnected(client));
        if (count > 0) {
            log.warn("[{}] {}: {} partitions withdrawn", memberId, cause, count);
            events.execute(held::tellLosses);
        }
    }

    private void onLeaseEvent(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None) {
            return;
        }
        int partition = zk.partitionOf(event.getPath());
        if (partition >= 0) {
            partitionsChanged.add(partition);
        }
        queueStep();
    }

    private void wake(AtomicBoolean flag) {
        flag.set(true);
        queueStep();
    }

    private void queueStep() {
        if (stepQueued.compareAndSet(false, true)) {
            events.execute(this::step);
        }
    }
}
