package dev.leasehold.scenarios.chaos;

import dev.leasehold.recipes.FencedLeaderLatch;
import dev.leasehold.recipes.FencedLeaderListener;
import dev.leasehold.recipes.FencedLeaderSelector;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencingException;
import dev.leasehold.store.StaleTokenException;
import java.io.Closeable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
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

        void acknowledged(long token, long seq);

        void staleRejected(long token);

        void databaseError();

        /** The member no longer believes it leads with {@code token}. */
        void ended(long token, long atNanos);
    }

    private final CuratorFramework client;
    private final FenceGate gate;
    /** Null: fenced. Otherwise the unfenced writes go straight to this database, as code without a gate would. */
    private final javax.sql.DataSource unfenced;
    private final String historyTable;
    private final String id;
    private final boolean selector;
    private final String path;
    private final String resource;
    private final Events events;
    private final Runnable beforeEachWrite;
    private volatile boolean closing;
    /** Set when the latch's current grant is lost; each grant's worker watches its own flag. */
    private volatile AtomicBoolean lost = new AtomicBoolean(true);
    private Closeable recipe;
    private final java.util.List<Thread> workers = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * @param unfenced        null to write through the gate; a data source to write without it (to show what the
     *                        checker finds then)
     * @param beforeEachWrite runs between the leadership check and each write: where the in-process campaign freezes
     *                        a worker to stand for a GC pause
     */
    Member(CuratorFramework client, FenceGate gate, javax.sql.DataSource unfenced, String historyTable, String id,
           boolean selector, String path, String resource, Events events, Runnable beforeEachWrite) {
        this.client = client;
        this.gate = gate;
        this.unfenced = unfenced;
        this.historyTable = historyTable;
        this.id = id;
        this.selector = selector;
        this.path = path;
        this.resource = resource;
        this.events = events;
        this.beforeEachWrite = beforeEachWrite;
    }

    static String election(boolean selector) {
        return selector ? "selector" : "latch";
    }

    void start() {
        if (selector) {
            FencedLeaderSelector s = new FencedLeaderSelector(client, path, id,
                    (c, token) -> work(token, granted(token), null));
            s.autoRequeue();
            s.start();
            recipe = s;
        } else {
            FencedLeaderLatch latch = new FencedLeaderLatch(client, path, id);
            latch.addListener(new FencedLeaderListener() {
                @Override
                public void leadershipAcquired(FencingToken token) {
                    long session = granted(token);
                    AtomicBoolean mine = new AtomicBoolean();
                    lost = mine;
                    Thread worker = new Thread(() -> work(token, session, mine), "chaos-" + id);
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
        try {
            boolean fenced = false;
            for (long seq = 1; !stopped(lostFlag); seq++) {
                beforeEachWrite.run();
                long n = seq;
                boolean interrupted = Thread.interrupted(); // a frozen thread never saw the interrupt
                try {
                    if (unfenced != null) {
                        try (Connection c = unfenced.getConnection()) {
                            insert(c, token.value(), n, session);
                        }
                    } else {
                        if (!fenced) {
                            gate.advance(resource, token.value());
                            fenced = true;
                        }
                        gate.write(resource, token.value(), tx -> insert(tx, token.value(), n, session));
                    }
                    events.acknowledged(token.value(), n);
                } catch (StaleTokenException e) {
                    events.staleRejected(token.value());
                    return;
                } catch (FencingException | SQLException e) {
                    events.databaseError(); // a terminated connection or a restarting database: try again
                } finally {
                    if (interrupted) {
                        Thread.currentThread().interrupt();
                    }
                }
                Thread.sleep(WRITE_PACE_MS); // the pace of the leader's work
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            events.ended(token.value(), System.nanoTime());
        }
    }

    private boolean stopped(AtomicBoolean lostFlag) {
        return closing || (lostFlag == null ? Thread.currentThread().isInterrupted() : lostFlag.get());
    }

    private void insert(Connection tx, long token, long seq, long session) throws SQLException {
        try (PreparedStatement p = tx.prepareStatement("INSERT INTO " + historyTable + " (resource, participant,"
                + " token, seq, session) VALUES (?, ?, ?, ?, ?)")) {
            p.setString(1, resource);
            p.setString(2, id);
            p.setLong(3, token);
            p.setLong(4, seq);
            p.setLong(5, session);
            p.executeUpdate();
        }
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
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        for (Thread worker : workers) {
            try {
                worker.join(Math.max(1, java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(deadline
                        - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
