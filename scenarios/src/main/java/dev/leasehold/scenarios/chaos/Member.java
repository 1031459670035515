package dev.leasehold.scenarios.chaos;

import dev.leasehold.recipes.FencedLeaderLatch;
import dev.leasehold.recipes.FencedLeaderListener;
import dev.leasehold.recipes.FencedLeaderSelector;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.store.FenceGate;
import dev.leasehold.testkit.HistoryTable;
import java.io.Closeable;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;

/**
 * One campaign participant's election and work, the same in the campaign's JVM and in a child JVM
 * ({@link ChaosChild}): a FencedLeaderLatch or FencedLeaderSelector; while leader, fence first ({@code advance}),
 * then write (participant, token, sequence number, session) into the history table through the gate, in the
 * gate's transaction, until the resource refuses the token, leadership is lost, or the member is closed.
 * A database error (a terminated connection, a restarting database) is counted and the loop goes on.
 */
final class Member implements Closeable {

    static final long WRITE_PACE_MS = 25;

    /**
     * What a member reports. Times are {@link System#nanoTime()}, which on Linux and macOS is one monotonic clock for
     * every process of the machine (the campaign checks this when a child JVM joins).
     */
    interface Events {
        /**
         * Stamped in the recipe's callback, right after the recipe verified the token, so that grants of different
         * participants (and JVMs) order as ZooKeeper granted them, not as their reports arrived.
         */
        void granted(long token, long session, long atNanos);

        /**
         * A write was committed: its commit returned, or a read-back found it after a commit whose outcome was
         * unknown.
         *
         * @param resource   the resource the write was made on (the history table's), which the checker's rule 4
         *                   looks for it on
         * @param sentNanos  just before the write was sent
         * @param ackedNanos once it was known to be committed
         */
        void acknowledged(String resource, long token, long seq, long sentNanos, long ackedNanos);

        void staleRejected(long token);

        /**
         * A write, advance or read-back failed with a database error (not the fence's refusal).
         *
         * @param what the error as "SQLState: message" (one line), so that the campaign can say what refused a write
         */
        void databaseError(String what);

        /** The member no longer believes it leads with {@code token}. */
        void ended(long token, long atNanos);
    }

    /**
     * What a member does, checked here.
     *
     * @param id              the participant's id (1 to 20 characters)
     * @param selector        a FencedLeaderSelector rather than a FencedLeaderLatch
     * @param path            the election path
     * @param resource        the fenced resource it writes to
     * @param prefix          the table prefix: its writes land in {@link HistoryTable#name}
     * @param database        the database (where a write of unknown outcome is read back, and unfenced writes go)
     * @param unfenced        write without the gate (to show what the checker finds then)
     * @param beforeEachWrite runs between the leadership check and each write: where the in-process campaign freezes
     *                        a worker to stand for a GC pause
     */
    record Config(
            String id,
            boolean selector,
            String path,
            String resource,
            String prefix,
            DataSource database,
            boolean unfenced,
            Runnable beforeEachWrite) {

        Config {
            if (id == null || id.isEmpty() || id.length() > 20) {
                throw new IllegalArgumentException("id must be 1 to 20 characters, was " + id);
            }
            if (path == null || !path.startsWith("/")) {
                throw new IllegalArgumentException("path must start with '/', was " + path);
            }
            if (resource == null
                    || resource.isEmpty()
                    || prefix == null
                    || database == null
                    || beforeEachWrite == null) {
                throw new IllegalArgumentException("resource, prefix, database and beforeEachWrite are required");
            }
        }

        /** A fenced member that writes at its own pace. */
        static Config of(
                String id, boolean selector, String path, String resource, String prefix, DataSource database) {
            return new Config(id, selector, path, resource, prefix, database, false, () -> {});
        }

        /** The child JVM's member, from its arguments. */
        static Config of(ChildArgs args, DataSource database) {
            return of(args.id(), args.selector(), args.path(), args.resource(), args.prefix(), database)
                    .withUnfenced(!args.fenced());
        }

        Config withUnfenced(boolean unfenced) {
            return new Config(id, selector, path, resource, prefix, database, unfenced, beforeEachWrite);
        }

        Config withBeforeEachWrite(Runnable beforeEachWrite) {
            return new Config(id, selector, path, resource, prefix, database, unfenced, beforeEachWrite);
        }
    }

    private final CuratorFramework client;
    private final FenceGate gate;
    private final Config config;
    private final Events events;
    private volatile boolean closing;
    /** Set when the latch's current grant is lost; each grant's worker watches its own flag. */
    private volatile AtomicBoolean lost = new AtomicBoolean(true);

    private Closeable recipe;
    private final List<Thread> workers = new CopyOnWriteArrayList<>();

    Member(CuratorFramework client, FenceGate gate, Config config, Events events) {
        this.client = client;
        this.gate = gate;
        this.config = config;
        this.events = events;
    }

    static String election(boolean selector) {
        return selector ? "selector" : "latch";
    }

    void start() {
        if (config.selector()) {
            FencedLeaderSelector s = new FencedLeaderSelector(
                    client, config.path(), config.id(), (c, token) -> work(token, granted(token), null));
            s.autoRequeue();
            s.start();
            recipe = s;
        } else {
            FencedLeaderLatch latch = new FencedLeaderLatch(client, config.path(), config.id());
            latch.addListener(new FencedLeaderListener() {
                @Override
                public void leadershipAcquired(FencingToken token) {
                    long session = granted(token);
                    AtomicBoolean mine = new AtomicBoolean();
                    lost = mine;
                    Thread worker = new Thread(() -> work(token, session, mine), "chaos-" + config.id());
                    worker.setDaemon(true);
                    workers.removeIf(w -> !w.isAlive());
                    workers.add(worker);
                    worker.start();
                }

                @Override
                public void leadershipLost(FencingToken token) {
                    lost.set(true);
                }
            });
            latch.start();
            recipe = latch;
        }
    }

    /** Reports the grant, on the recipe's thread; returns the session that holds it (0 if it cannot be read). */
    private long granted(FencingToken token) {
        long at = System.nanoTime();
        long session;
        try {
            session = client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            session = 0; // the client is closing: the grant is still reported, so its belief is accounted for
        }
        events.granted(token.value(), session, at);
        return session;
    }

    /** Fence first, then write until the resource refuses, leadership is lost, or the member closes. */
    private void work(FencingToken token, long session, AtomicBoolean lostFlag) {
        new LeaderWork(
                        config.id(),
                        config.resource(),
                        config.prefix(),
                        gate,
                        config.database(),
                        config.unfenced(),
                        config.beforeEachWrite(),
                        events)
                .run(token.value(), session, () -> stopped(lostFlag));
    }

    private boolean stopped(AtomicBoolean lostFlag) {
        return closing || (lostFlag == null ? Thread.currentThread().isInterrupted() : lostFlag.get());
    }

    /** Closes the recipe (a selector waits for its leader's work) and waits, bounded, for the latch's workers. */
    @Override
    public void close() {
        closing = true;
        try {
            if (recipe != null) {
                recipe.close();
            }
        } catch (Exception ignored) {
            // closing is best effort: the campaign is over
        }
        InJvmParticipant.joinAll(workers);
    }
}
