package dev.leasehold.recipes;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.CuratorEventType;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The grant of a {@link FencedLeaderLatch}: how Curator's leadership becomes a {@link FencingToken} and how it ends
 * (see the latch's class comment for the checks). Package-private: copied with the latch.
 *
 * <p>Leadership moves here only. Grants are made on the recipe's own thread; a withdrawal happens at once on any
 * thread (it never blocks) and its listeners are told on the recipe's thread.
 */
final class LatchGrants {

    private static final Logger log = LoggerFactory.getLogger(FencedLeaderLatch.class);

    /** The first re-check after a grant that could not be completed; then doubled, up to {@link #RECHECK_MAX_MILLIS}. */
    static final long RECHECK_FIRST_MILLIS = 50;
    /** The bound of the re-check interval while Curator leads and we hold no token of its node. */
    static final long RECHECK_MAX_MILLIS = 1_000;

    /**
     * Who we are as leader right now. Replaced, never mutated, except for {@code told}, the listeners told of it
     * (touched on the recipe's own thread only). Identity is what compareAndSet compares.
     */
    record Grant(FencingToken token, String curatorPath, long generation, List<LatchListeners.Registration> told) {
        static Grant none(long generation) {
            return new Grant(null, null, generation, List.of());
        }
    }

    /** What a node's create answer tells once and for ever: czxid and ephemeralOwner never change. */
    private record NodeStat(long czxid, long owner) {}

    private final CuratorFramework client;
    private final String latchPath;
    private final String participantId;
    private final ReplaceableLatch latch;
    private final RecipeThread events;
    private final LatchListeners listeners;
    private final ProgressWatch progress;
    /** {@code true} while the latch is started (grants are made only then). */
    private final BooleanSupplier started;
    /** Wakes the latch's {@code await}. */
    private final Runnable signalWaiters;

    private final AtomicReference<Grant> grant = new AtomicReference<>(Grant.none(0));
    /** Stats of our own nodes, by Curator's (namespace-relative, protected) path; only Curator's current node kept. */
    private final Map<String, NodeStat> stats = new ConcurrentHashMap<>();

    private final AtomicBoolean reconcileQueued = new AtomicBoolean();
    /** A re-check is waiting on the timer; touched on the recipe's own thread only. */
    private boolean recheckPending;
    /** The next re-check's delay; reset once the level is reached or Curator stops leading (recipe's thread only). */
    private long recheckDelayMillis = RECHECK_FIRST_MILLIS;

    LatchGrants(
            CuratorFramework client,
            String latchPath,
            String participantId,
            ReplaceableLatch latch,
            RecipeThread events,
            LatchListeners listeners,
            ProgressWatch progress,
            BooleanSupplier started,
            Runnable signalWaiters) {
        this.client = client;
        this.latchPath = latchPath;
        this.participantId = participantId;
        this.latch = latch;
        this.events = events;
        this.listeners = listeners;
        this.progress = progress;
        this.started = started;
        this.signalWaiters = signalWaiters;
    }

    /** @return the current grant (its token is {@code null} when none is held) */
    Grant current() {
        return grant.get();
    }

    /** On ZooKeeper's event thread, after Curator's own callback: keep our node's Stat, then re-check. */
    void answered(CuratorEvent event) {
        Stat stat = event.getStat();
        String path = event.getType() == CuratorEventType.CREATE ? event.getName() : event.getPath();
        if (event.getResultCode() == KeeperException.Code.OK.intValue()
                && stat != null
                && path != null
                && (event.getType() == CuratorEventType.CREATE || event.getType() == CuratorEventType.GET_DATA)) {
            String ours = latch.getOurPath();
            if (path.equals(ours)) {
                stats.put(path, new NodeStat(stat.getCzxid(), stat.getEphemeralOwner()));
            }
            stats.keySet().removeIf(p -> !p.equals(ours));
        }
        if (event.getType() == CuratorEventType.CHILDREN
                && event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
            latch.suspect("Curator's listing of " + latchPath + " found no such path"); // CURATOR-724
        }
        // Only when Curator leads with a node whose token we do not hold (its report may not come: see the class
        // comment); waking our thread for every answer would compete with Curator's own work for the CPU.
        if (latch.hasLeadership()
                && !Objects.equals(latch.getLastPathIsLeader(), grant.get().curatorPath())) {
            reconcile();
        }
    }

    /** Any thread, never blocks: queue one check of Curator's leadership on our thread. */
    void reconcile() {
        if (reconcileQueued.compareAndSet(false, true)) {
            events.execute(() -> {
                reconcileQueued.set(false);
                grantIfCuratorLeads();
            });
        }
    }

    /**
     * On the recipe's own thread: take the token of Curator's leading node; if Curator still leads with a node whose
     * token we do not hold, check again later. The level is held without relying on seeing Curator's answers (a
     * Curator the view cannot see, or a report Curator never repeats because it already "leads"): while the level is
     * not reached, re-checks run on this thread at a doubling interval bounded by {@link #RECHECK_MAX_MILLIS}; they
     * stop when the token is held, Curator stops leading (its {@code isLeader} starts them again) or the latch closes.
     * A re-check sends no request unless a Stat must be read.
     */
    private void grantIfCuratorLeads() {
        tryGrant();
        if (!started.getAsBoolean()
                || !latch.hasLeadership()
                || Objects.equals(latch.getLastPathIsLeader(), grant.get().curatorPath())) {
            recheckDelayMillis = RECHECK_FIRST_MILLIS; // level reached, not leading or closed: nothing to re-check
            return;
        }
        if (!recheckPending) {
            recheckPending = true;
            long delay = recheckDelayMillis;
            recheckDelayMillis = Math.min(RECHECK_MAX_MILLIS, delay * 2);
            log.debug("[{}] Curator leads, no token yet; checking again in {} ms", participantId, delay);
            // The JDK's delay thread only queues the re-check on our thread: it never runs it, so it never blocks.
            CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS, events::execute)
                    .execute(() -> {
                        recheckPending = false;
                        grantIfCuratorLeads();
                    });
        }
    }

    /** On the recipe's own thread: if Curator leads with a node whose token we do not hold, take that token. */
    private void tryGrant() {
        listeners.drainLosses();
        if (!started.getAsBoolean()) {
            return;
        }
        String path = latch.getLastPathIsLeader();
        Grant current = grant.get();
        if (!latch.hasLeadership() || path == null) {
            return; // notLeader (or a state change) withdraws; nothing to grant
        }
        if (current.token() != null) {
            if (path.equals(current.curatorPath())) {
                return; // level reached: we hold the token of Curator's leading node
            }
            withdraw(LossCause.NODE_GONE, "Curator now leads with another node, " + path);
            listeners.drainLosses();
            current = grant.get();
        }
        // Curator 5.9.0 can report leadership for a node it has already replaced (a stale getData answer): only a
        // node that is still Curator's own is ours. Its answer about the current node, or our re-check, brings us back.
        if (!path.equals(latch.getOurPath())) {
            log.debug(
                    "[{}] Curator reports leadership for {}, no longer its node; checking again shortly",
                    participantId,
                    path);
            return;
        }
        NodeStat stat = stats.get(path);
        if (stat == null) {
            stat = readStat(path); // not seen (Curator recovered a protected create, say): one round trip
            if (stat == null) {
                latch.suspect("Curator leads with " + path + ", which could not be read");
                return;
            }
        }
        // The node must be owned by our current session: a node of an expired session is not ours, whatever
        // Curator's flag says. (Curator checked this too, but against the session of its answer; we check now.)
        long session = ElectionNodes.sessionId(client);
        if (stat.owner() != session) {
            log.debug(
                    "[{}] node {} is owned by session 0x{}, ours is 0x{}; not granted",
                    participantId,
                    path,
                    Long.toHexString(stat.owner()),
                    Long.toHexString(session));
            latch.suspect("Curator leads with " + path + ", a node of another session"); // CURATOR-696
            return;
        }
        FencingToken token = new FencingToken(stat.czxid(), ElectionNodes.fullPath(client, path), participantId);
        Grant next = new Grant(token, path, current.generation() + 1, LatchListeners.newTold());
        // A loss while checking bumped the generation: the check is void (compareAndSet compares identity).
        if (!latch.hasLeadership()
                || !path.equals(latch.getLastPathIsLeader())
                || !grant.compareAndSet(current, next)) {
            log.debug("[{}] leadership changed while granting token {}; not granted", participantId, token.value());
            return;
        }
        progress.leading(token);
        if (grant.get() != next) {
            progress.notLeading(); // withdrawn between the swap and leading(): disarm what leading() armed
        }
        signalWaiters.run();
        log.info(
                "[{}] leading with token {} (0x{}) on {}",
                participantId,
                token.value(),
                Long.toHexString(token.value()),
                token.path());
        // Withdrawn meanwhile (a listener closed the latch, say): the rest never hear of this grant.
        listeners.tellAcquired(token, next.told(), () -> grant.get() == next);
        listeners.drainLosses();
    }

    private NodeStat readStat(String path) {
        try {
            Stat stat = client.checkExists().forPath(path);
            if (stat == null) {
                log.debug("[{}] node {} is gone; Curator will replace it", participantId, path);
                return null;
            }
            return new NodeStat(stat.getCzxid(), stat.getEphemeralOwner());
        } catch (Exception e) {
            log.warn(
                    "[{}] could not read the Stat of {}; checking again shortly, on Curator's next answer or RECONNECTED",
                    participantId,
                    path,
                    e);
            return null;
        }
    }

    /** Any thread; never blocks. Ends the current grant, if any, and voids checks in flight. */
    void withdraw(LossCause cause, String why) {
        if (endGrant(cause, why)) {
            events.execute(listeners::drainLosses);
        }
    }

    /**
     * Any thread; never blocks. Curator's latch was replaced ({@link ReplaceableLatch}, possibly on another thread than
     * ours): ends the current grant unless it is of the new latch's node (which may already lead), voids checks in
     * flight, and checks the new latch's leadership.
     */
    void replaced(String why) {
        if (endGrantUnlessOf(latch.getOurPath(), LossCause.NODE_GONE, "Curator's latch was replaced: " + why)) {
            events.execute(listeners::drainLosses);
        }
        reconcile();
    }

    /** Ends the current grant; {@code true} if there was one (its listeners are told by the next drainLosses). */
    boolean endGrant(LossCause cause, String why) {
        return endGrantUnlessOf(null, cause, why);
    }

    /** {@link #endGrant}, except that a grant of Curator's node {@code keep} (if not null) stays. */
    private boolean endGrantUnlessOf(String keep, LossCause cause, String why) {
        Grant current;
        do {
            current = grant.get();
            if (keep != null && current.token() != null && keep.equals(current.curatorPath())) {
                return false;
            }
        } while (!grant.compareAndSet(current, Grant.none(current.generation() + 1)));
        if (current.token() != null) {
            progress.notLeading();
        }
        signalWaiters.run();
        if (current.token() == null) {
            return false;
        }
        log.info("[{}] token {} withdrawn: {}", participantId, current.token().value(), why);
        listeners.lost(current.token(), current.told(), cause);
        return true;
    }
}
