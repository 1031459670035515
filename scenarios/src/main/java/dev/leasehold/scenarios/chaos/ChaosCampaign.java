package dev.leasehold.scenarios.chaos;

import dev.leasehold.recipes.FencedLeaderLatch;
import dev.leasehold.recipes.FencedLeaderListener;
import dev.leasehold.recipes.FencedLeaderSelector;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.recipes.TcpProxy;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.FencingException;
import dev.leasehold.store.StaleTokenException;
import dev.leasehold.store.StoreConfig;
import java.io.Closeable;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.client.FourLetterWordMain;

/**
 * A seeded fault campaign: participants (FencedLeaderLatch and FencedLeaderSelector, mixed) on a 3-server
 * TestingCluster, each connected through its own TCP proxies, write through {@link FenceGate} into a history table
 * while leader; a nemesis driven by the seed partitions them, pauses leaders (worker frozen and connection silent
 * longer than the session), kills and restarts servers (the quorum leader too), stops the whole ensemble shorter
 * and longer than the session, expires sessions on the client only, and terminates database connections on
 * PostgreSQL. Then {@link HistoryChecker} judges the history.
 */
public final class ChaosCampaign {

    /** Latches and selectors run two elections (Curator's two recipes never see each other's nodes), each fencing
     *  its own resource. */
    public static final String RESOURCE = "chaos-ledger-";
    private static final int TICK_MS = 200;
    private static final int SESSION_MS = 2_000;
    private static final long WRITE_PACE_MS = 25;

    /**
     * @param postgres true if {@code ds} is PostgreSQL (then connections are also terminated)
     */
    public record Config(Duration duration, long seed, int participants, DataSource ds, boolean postgres,
                         String databaseLabel, PrintStream out) {}

    public record Summary(String line, String faultMix, HistoryChecker.Result result) {}

    private final Config config;
    private final Random random;
    private final String prefix;
    private final FenceGate gate;
    private final List<HistoryChecker.Grant> grants = Collections.synchronizedList(new ArrayList<>());
    private final List<HistoryChecker.Ack> acks = Collections.synchronizedList(new ArrayList<>());
    private final List<HistoryChecker.Belief> beliefs = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger staleRejected = new AtomicInteger();
    private final AtomicInteger databaseErrors = new AtomicInteger();
    private final Map<String, Integer> faults = new TreeMap<>();
    private final List<Participant> participants = new ArrayList<>();
    private TestingCluster cluster;

    public ChaosCampaign(Config config) {
        this.config = config;
        this.random = new Random(config.seed());
        this.prefix = "lhc" + Long.toString(Math.abs(config.seed() % 1_000_000), 36) + "_"
                + Long.toString(System.nanoTime() % 10_000, 36) + "_";
        this.gate = new FenceGate(config.ds(), StoreConfig.defaults().withTablePrefix(prefix));
    }

    public Summary run() throws Exception {
        System.setProperty("zookeeper.4lw.commands.whitelist", "*");
        List<InstanceSpec> specs = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            specs.add(new InstanceSpec(null, -1, -1, -1, true, id, TICK_MS, 0));
        }
        FencedSchema.install(config.ds(), StoreConfig.defaults().withTablePrefix(prefix));
        try (Connection c = config.ds().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + prefix + "history (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
                    + " resource VARCHAR(100) NOT NULL, participant VARCHAR(20) NOT NULL, token BIGINT NOT NULL,"
                    + " seq BIGINT NOT NULL, session BIGINT NOT NULL)");
        }
        cluster = new TestingCluster(specs);
        long from;
        long to;
        try {
            cluster.start();
            for (int i = 0; i < config.participants(); i++) {
                Participant participant = new Participant("p-" + i, i % 2 == 1);
                participants.add(participant);
                participant.start();
            }
            from = System.nanoTime();
            long end = from + config.duration().toNanos();
            while (System.nanoTime() < end) {
                Thread.sleep(300 + random.nextInt(900)); // the quiet time between faults
                if (System.nanoTime() >= end) {
                    break;
                }
                inject(random.nextInt(100));
            }
            to = System.nanoTime();
            heal();
            Thread.sleep(3L * SESSION_MS); // lets the last leader settle and write before the campaign is closed
        } finally {
            for (Participant participant : participants) {
                participant.close();
            }
            cluster.close();
        }
        List<HistoryChecker.Committed> committed = readHistory();
        HistoryChecker.Result result;
        synchronized (grants) {
            result = HistoryChecker.check(committed, List.copyOf(grants), List.copyOf(acks), List.copyOf(beliefs),
                    from, to);
        }
        int faultCount = faults.values().stream().mapToInt(Integer::intValue).sum();
        String line = String.format("seed=%d faults=%d grants=%d writes accepted=%d stale rejected=%d overlapping"
                        + " beliefs=%d max time without a leader=%dms violations=%d", config.seed(), faultCount,
                grants.size(), committed.size(), staleRejected.get(), result.overlappingBeliefs(),
                TimeUnit.NANOSECONDS.toMillis(result.maxNanosWithoutLeader()), result.violations().size());
        String mix = faults.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", ")) + "; session " + SESSION_MS + " ms, tick " + TICK_MS + " ms, "
                + config.participants() + " participants, " + config.databaseLabel() + ", database errors survived "
                + databaseErrors.get();
        return new Summary(line, mix, result);
    }

    // ---- the nemesis ------------------------------------------------------------------------------------------

    private void inject(int dice) throws Exception {
        if (dice < 22) {
            Participant victim = pick();
            fault("partition");
            say("partition " + victim.id + (victim.leading != null ? " (a leader)" : "") + " for longer than its"
                    + " session");
            victim.silence();
            Thread.sleep(SESSION_MS + 500 + random.nextInt(1000)); // the partition's length
            victim.resume();
        } else if (dice < 44) {
            Participant victim = pick();
            fault("pause");
            say("pause " + victim.id + (victim.leading != null ? " (a leader)" : "") + ": worker frozen after its"
                    + " token, connection silent");
            int grantsBefore = grants.size();
            victim.freeze();
            Thread.sleep(SESSION_MS + 500 + random.nextInt(1000)); // the GC pause
            awaitGrantElsewhere(victim, grantsBefore); // it ends after someone else leads, as a long pause does
            victim.thaw();
        } else if (dice < 56) {
            InstanceSpec spec = List.copyOf(cluster.getInstances()).get(random.nextInt(3));
            boolean leader = mode(spec).equals("leader");
            fault(leader ? "kill quorum leader" : "kill server");
            say("kill server " + spec.getServerId() + (leader ? " (quorum leader)" : ""));
            cluster.killServer(spec);
            Thread.sleep(500 + random.nextInt(1500)); // the server's downtime
            cluster.restartServer(spec);
        } else if (dice < 64) {
            InstanceSpec leader = quorumLeader();
            if (leader != null) {
                fault("kill quorum leader");
                say("kill the quorum leader, server " + leader.getServerId());
                cluster.killServer(leader);
                Thread.sleep(500 + random.nextInt(1500)); // the server's downtime
                cluster.restartServer(leader);
            }
        } else if (dice < 72) {
            boolean longer = random.nextBoolean();
            fault(longer ? "ensemble down > session" : "ensemble down < session");
            say("stop the whole ensemble for " + (longer ? "longer" : "shorter") + " than the session");
            for (InstanceSpec spec : cluster.getInstances()) {
                cluster.killServer(spec);
            }
            Thread.sleep(longer ? SESSION_MS + 1_000 : SESSION_MS / 3); // the outage
            for (InstanceSpec spec : cluster.getInstances()) {
                cluster.restartServer(spec);
            }
        } else if (dice < 86 || !config.postgres()) {
            Participant victim = pick();
            fault("client-side expiry");
            say("expire " + victim.id + "'s session on the client only");
            victim.client.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
        } else {
            fault("terminate db connections");
            say("terminate every other database connection");
            try (Connection c = config.ds().getConnection(); Statement s = c.createStatement()) {
                s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database()"
                        + " AND pid <> pg_backend_pid()");
            }
        }
    }

    /** Waits (bounded) until another participant of the victim's election has been granted leadership. */
    private void awaitGrantElsewhere(Participant victim, int grantsBefore) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(4L * SESSION_MS);
        synchronized (grants) {
            while (grants.subList(grantsBefore, grants.size()).stream().noneMatch(g ->
                    g.election().equals(victim.election()) && !g.participant().equals(victim.id))) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                TimeUnit.NANOSECONDS.timedWait(grants, left);
            }
        }
    }

    private void fault(String kind) {
        faults.merge(kind, 1, Integer::sum);
    }

    private void say(String what) {
        config.out().println("  nemesis: " + what);
    }

    /** The participant that believes it leads, if any (the interesting victim), else any. */
    private Participant pick() {
        List<Participant> leaders = participants.stream().filter(p -> p.leading != null).toList();
        if (!leaders.isEmpty() && random.nextInt(4) > 0) {
            return leaders.get(random.nextInt(leaders.size()));
        }
        return participants.get(random.nextInt(participants.size()));
    }

    private InstanceSpec quorumLeader() {
        for (InstanceSpec spec : cluster.getInstances()) {
            if (mode(spec).equals("leader")) {
                return spec;
            }
        }
        return null;
    }

    private static String mode(InstanceSpec spec) {
        try {
            String answer = FourLetterWordMain.send4LetterWord(spec.getHostname(), spec.getPort(), "srvr", false,
                    1_000);
            return answer.lines().filter(l -> l.startsWith("Mode:")).map(l -> l.substring(5).trim()).findFirst()
                    .orElse("unknown");
        } catch (Exception e) {
            return "down";
        }
    }

    private void heal() throws Exception {
        for (InstanceSpec spec : cluster.getInstances()) {
            if (mode(spec).equals("down")) {
                cluster.restartServer(spec);
            }
        }
        for (Participant participant : participants) {
            participant.resume();
            participant.thaw();
        }
    }

    private List<HistoryChecker.Committed> readHistory() throws SQLException {
        List<HistoryChecker.Committed> rows = new ArrayList<>();
        try (Connection c = config.ds().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, resource, participant, token, seq, session FROM " + prefix
                     + "history ORDER BY id")) {
            while (rs.next()) {
                rows.add(new HistoryChecker.Committed(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getLong(4),
                        rs.getLong(5), rs.getLong(6)));
            }
        }
        return rows;
    }

    // ---- a participant --------------------------------------------------------------------------------------

    /** One participant: its proxies (one per server), its client, its recipe and its work loop while leader. */
    private final class Participant implements Closeable {
        final String id;
        final boolean selector;
        final List<TcpProxy> proxies = new ArrayList<>();
        final CuratorFramework client;
        volatile FencingToken leading;
        volatile CountDownLatch frozen;
        /** Set when the latch's current grant is lost; each grant's worker watches its own flag. */
        volatile java.util.concurrent.atomic.AtomicBoolean lost = new java.util.concurrent.atomic.AtomicBoolean(true);
        private Closeable recipe;

        Participant(String id, boolean selector) throws Exception {
            this.id = id;
            this.selector = selector;
            List<String> addresses = new ArrayList<>();
            for (InstanceSpec spec : cluster.getInstances()) {
                TcpProxy proxy = new TcpProxy(spec.getHostname(), spec.getPort());
                proxies.add(proxy);
                addresses.add(proxy.connectString());
            }
            // ensembleTracker(false): Curator would otherwise replace the proxies' addresses with the servers' own
            // (read from /zookeeper/config), bypass the proxies, and no partition would ever expire a session.
            client = CuratorFrameworkFactory.builder().connectString(String.join(",", addresses))
                    .ensembleTracker(false)
                    .sessionTimeoutMs(SESSION_MS).connectionTimeoutMs(SESSION_MS)
                    .retryPolicy(new RetryNTimes(5, 200)).build();
            client.start();
        }

        String election() {
            return selector ? "selector" : "latch";
        }

        void start() {
            String path = "/chaos/" + prefix + election();
            if (selector) {
                FencedLeaderSelector s = new FencedLeaderSelector(client, path, id, (c, token) -> work(token, null));
                s.autoRequeue();
                s.start();
                recipe = s;
            } else {
                FencedLeaderLatch latch = new FencedLeaderLatch(client, path, id);
                latch.addListener(new FencedLeaderListener() {
                    @Override
                    public void leadershipAcquired(FencingToken token) {
                        java.util.concurrent.atomic.AtomicBoolean mine = new java.util.concurrent.atomic.AtomicBoolean();
                        lost = mine;
                        Thread worker = new Thread(() -> work(token, mine), "chaos-" + id);
                        worker.setDaemon(true);
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

        /** Fence first, then write until the resource refuses, leadership is lost, or the campaign closes. */
        private void work(FencingToken token, java.util.concurrent.atomic.AtomicBoolean lostFlag) {
            long session;
            try {
                session = client.getZookeeperClient().getZooKeeper().getSessionId();
            } catch (Exception e) {
                return;
            }
            long since = System.nanoTime();
            synchronized (grants) {
                grants.add(new HistoryChecker.Grant(since, election(), id, token.value(), session));
                grants.notifyAll();
            }
            String resource = RESOURCE + election();
            leading = token;
            try {
                gate.advance(resource, token.value());
                for (long seq = 1; !stopped(lostFlag); seq++) {
                    holdIfFrozen();
                    long n = seq;
                    boolean interrupted = Thread.interrupted(); // a frozen thread never saw the interrupt
                    try {
                        gate.write(resource, token.value(), tx -> insert(tx, resource, token.value(), n, session));
                        acks.add(new HistoryChecker.Ack(id, token.value(), n));
                    } catch (StaleTokenException e) {
                        staleRejected.incrementAndGet();
                        return;
                    } catch (FencingException e) {
                        databaseErrors.incrementAndGet(); // a terminated connection: try again
                    } finally {
                        if (interrupted) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    Thread.sleep(WRITE_PACE_MS); // the pace of the leader's work
                }
            } catch (StaleTokenException e) {
                staleRejected.incrementAndGet();
            } catch (FencingException e) {
                databaseErrors.incrementAndGet();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                if (leading == token) {
                    leading = null;
                }
                beliefs.add(new HistoryChecker.Belief(election(), id, token.value(), since, System.nanoTime()));
            }
        }

        private boolean stopped(java.util.concurrent.atomic.AtomicBoolean lostFlag) {
            return closing || (lostFlag == null ? Thread.currentThread().isInterrupted() : lostFlag.get());
        }

        private volatile boolean closing;

        private void insert(Connection tx, String resource, long token, long seq, long session)
                throws SQLException {
            try (PreparedStatement p = tx.prepareStatement("INSERT INTO " + prefix + "history (resource, participant,"
                    + " token, seq, session) VALUES (?, ?, ?, ?, ?)")) {
                p.setString(1, resource);
                p.setString(2, id);
                p.setLong(3, token);
                p.setLong(4, seq);
                p.setLong(5, session);
                p.executeUpdate();
            }
        }

        /** A frozen worker waits here, between its leadership check and its next write, deaf to interrupts. */
        private void holdIfFrozen() {
            CountDownLatch hold = frozen;
            if (hold == null) {
                return;
            }
            boolean interrupted = false;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (hold.getCount() > 0 && System.nanoTime() < deadline) {
                try {
                    hold.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        void silence() {
            proxies.forEach(TcpProxy::silence);
        }

        void resume() {
            proxies.forEach(TcpProxy::resume);
        }

        void freeze() {
            frozen = new CountDownLatch(1);
            silence();
        }

        void thaw() {
            resume();
            CountDownLatch hold = frozen;
            frozen = null;
            if (hold != null) {
                hold.countDown();
            }
        }

        @Override
        public void close() {
            closing = true;
            thaw();
            try {
                if (recipe != null) {
                    recipe.close();
                }
            } catch (Exception ignored) {
                // closing is best effort
            }
            client.close();
            for (TcpProxy proxy : proxies) {
                try {
                    proxy.close();
                } catch (Exception ignored) {
                    // best effort
                }
            }
        }
    }
}
