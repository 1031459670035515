package dev.leasehold.scenarios.chaos;

import dev.leasehold.recipes.TcpProxy;
import dev.leasehold.scenarios.ChildJvm;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.client.FourLetterWordMain;

/**
 * A seeded fault campaign. Participants (FencedLeaderLatch and FencedLeaderSelector, mixed; in this JVM or, in
 * process mode, each in its own JVM) connect to ZooKeeper through their own TCP proxies, one per server, and while
 * leader write through {@link FenceGate} into a history table. ZooKeeper is a 3-server TestingCluster the campaign
 * starts, or an ensemble it is given ({@code zkConnect}; then it kills no servers). A nemesis driven by the seed:
 * <ul>
 *   <li>partitions a participant (its proxies silent longer than the session);</li>
 *   <li>pauses one: in this JVM its worker is frozen after its token and its connection silenced; in process mode
 *       the whole JVM gets {@code kill -STOP} and, after another participant was granted, {@code kill -CONT};</li>
 *   <li>kills and restarts servers, the quorum leader too, and stops the whole ensemble shorter and longer than the
 *       session (own cluster only);</li>
 *   <li>expires a session on the client only;</li>
 *   <li>crashes a participant's JVM with {@code kill -KILL} and starts a new one (process mode only);</li>
 *   <li>terminates the database's connections (PostgreSQL) and restarts the database (one the campaign started).</li>
 * </ul>
 * Then {@link HistoryChecker} judges the history.
 */
public final class ChaosCampaign {

    /** Latches and selectors run two elections (Curator's two recipes never see each other's nodes), each fencing
     *  its own resource. */
    public static final String RESOURCE = "chaos-ledger-";
    private static final int TICK_MS = 200;
    private static final int SESSION_MS = 2_000;
    private static final long CHILD_START_SECONDS = 60;
    private static final long FAULT_DICE_SALT = 0x5DEECE66DL;
    /** A stopped child JVM is resumed after this long even if the campaign's JVM is gone (pauses are shorter). */
    private static final int RESUME_ANYWAY_SECONDS = 60;

    /**
     * @param zkConnect an ensemble to use (its servers are never killed), or null for a 3-server TestingCluster
     * @param processes run each participant in its own JVM (needs kill: Linux or macOS)
     * @param minimumFaults the nemesis runs for {@code duration} and until it has injected at least this many faults
     * @param unfenced  participants write without the gate (no advance, no token check): the checker must then
     *                  find the stale writes that land
     */
    public record Config(Duration duration, long seed, int participants, ChaosDatabase database, String zkConnect,
                         boolean processes, int minimumFaults, boolean unfenced, PrintStream out) {}

    /**
     * @param line       the one summary line
     * @param faultMix   each fault kind's count, and the campaign's settings
     * @param longestGap when and in which election the longest time without a leader was, to read with the
     *                   nemesis's timed lines
     * @param exercised  whether anything was tested: at least one grant and one accepted write (a campaign whose
     *                   participants cannot reach ZooKeeper or the database has violations=0 and proves nothing)
     */
    public record Summary(String line, String faultMix, String longestGap, boolean exercised,
                          HistoryChecker.Result result) {}

    private final Config config;
    private final Random random;
    /** Decides only which fault comes next, so that a seed fixes the sequence of fault kinds. */
    private final Random faultDice;
    private final String prefix;
    private final List<HistoryChecker.Grant> grants = Collections.synchronizedList(new ArrayList<>());
    private final List<HistoryChecker.Ack> acks = Collections.synchronizedList(new ArrayList<>());
    private final List<HistoryChecker.Belief> beliefs = Collections.synchronizedList(new ArrayList<>());
    /** Per participant, the grants it still believes in: token and since when. */
    private final Map<String, List<long[]>> openBeliefs = new HashMap<>();
    /** "participant/token" of every grant that has had a write acknowledged. */
    private final java.util.Set<String> writtenWith = new java.util.HashSet<>();
    private final AtomicInteger staleRejected = new AtomicInteger();
    private final AtomicInteger databaseErrors = new AtomicInteger();
    private final Map<String, Integer> faults = new TreeMap<>();
    private final List<Participant> participants = new ArrayList<>();
    private final Map<String, Integer> faultWeights = new LinkedHashMap<>();
    private TestingCluster cluster;
    /** When the nemesis began: the origin of its timed lines. */
    private volatile long started = System.nanoTime();
    private List<String[]> servers;
    private String chroot = "";

    public ChaosCampaign(Config config) {
        if (config.processes() && !ChildJvm.signalsSupported()) {
            throw new IllegalArgumentException("process mode needs kill -STOP/-CONT/-KILL (Linux or macOS); this is "
                    + System.getProperty("os.name"));
        }
        this.config = config;
        this.random = new Random(config.seed());
        this.faultDice = new Random(config.seed() ^ FAULT_DICE_SALT);
        this.prefix = "lhc" + Long.toString(Math.abs(config.seed() % 1_000_000), 36) + "_"
                + Long.toString(System.nanoTime() % 10_000, 36) + "_";
        boolean ownCluster = config.zkConnect() == null;
        faultWeights.put("partition", 20);
        faultWeights.put("pause", 20);
        faultWeights.put("kill server", ownCluster ? 10 : 0);
        faultWeights.put("kill quorum leader", ownCluster ? 8 : 0);
        faultWeights.put("ensemble down", ownCluster ? 7 : 0);
        faultWeights.put("client-side expiry", 12);
        faultWeights.put("crash participant", config.processes() ? 8 : 0);
        // Only a database the campaign started: on a --jdbc database it would kill other applications' connections.
        faultWeights.put("terminate db connections", config.database().postgres() && config.database().restartable()
                ? 8 : 0);
        faultWeights.put("restart database", config.database().restartable() ? 7 : 0);
    }

    /** The faults this campaign can inject, with their weights (0: not possible in this configuration). */
    public Map<String, Integer> faultWeights() {
        return Collections.unmodifiableMap(faultWeights);
    }

    public Summary run() throws Exception {
        System.setProperty("zookeeper.4lw.commands.whitelist", "*");
        StoreConfig store = StoreConfig.defaults().withTablePrefix(prefix);
        FencedSchema.install(config.database().dataSource(), store);
        try (Connection c = config.database().dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + prefix + "history (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
                    + " resource VARCHAR(100) NOT NULL, participant VARCHAR(20) NOT NULL, token BIGINT NOT NULL,"
                    + " seq BIGINT NOT NULL, session BIGINT NOT NULL)");
        }
        long from;
        long to;
        // A child JVM stopped with kill -STOP would never read that stdin closed: kill them all if this JVM exits.
        Thread killChildren = new Thread(() -> participants.forEach(Participant::kill), "chaos-kill-children");
        Runtime.getRuntime().addShutdownHook(killChildren);
        try {
            startEnsemble();
            FenceGate gate = new FenceGate(config.database().dataSource(), store);
            for (int i = 0; i < config.participants(); i++) {
                String id = "p-" + i;
                boolean selector = i % 2 == 1;
                Participant participant = config.processes() ? new ChildParticipant(id, selector)
                        : new LocalParticipant(id, selector, gate);
                participants.add(participant);
                participant.start();
            }
            for (Participant participant : participants) {
                participant.awaitJoined();
            }
            awaitFirstLeaders(); // the time without a leader is measured from there on, not from the first election
            from = System.nanoTime();
            started = from;
            long end = from + config.duration().toNanos();
            for (int injected = 0; System.nanoTime() < end || injected < config.minimumFaults(); injected++) {
                Thread.sleep(300 + random.nextInt(900)); // the quiet time between faults
                if (System.nanoTime() >= end && injected >= config.minimumFaults()) {
                    break;
                }
                inject(pickFault(faultDice));
            }
            to = System.nanoTime();
            heal();
            Thread.sleep(3L * SESSION_MS); // lets the last leader settle and write before the campaign is closed
        } finally {
            for (Participant participant : participants) {
                participant.close();
            }
            if (cluster != null) {
                cluster.close();
            }
            Runtime.getRuntime().removeShutdownHook(killChildren);
        }
        // What the participants saw, taken before the table is read: every write acknowledged here committed
        // before this point, so a missing row is a lost write, never a late read.
        List<HistoryChecker.Grant> sawGranted;
        List<HistoryChecker.Ack> sawAcknowledged;
        List<HistoryChecker.Belief> believed;
        synchronized (grants) {
            sawGranted = List.copyOf(grants);
            sawAcknowledged = List.copyOf(acks);
            believed = List.copyOf(beliefs);
        }
        List<HistoryChecker.Committed> committed = readHistory();
        HistoryChecker.Result result = HistoryChecker.check(committed, sawGranted, sawAcknowledged, believed,
                List.of(Member.election(false), Member.election(true)), from, to);
        int faultCount = faults.values().stream().mapToInt(Integer::intValue).sum();
        String line = String.format("seed=%d faults=%d grants=%d writes accepted=%d stale rejected=%d overlapping"
                        + " beliefs=%d max time without a leader=%dms violations=%d", config.seed(), faultCount,
                sawGranted.size(), committed.size(), staleRejected.get(), result.overlappingBeliefs(),
                TimeUnit.NANOSECONDS.toMillis(result.maxNanosWithoutLeader()), result.violations().size());
        String mix = faults.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", ")) + "; session " + SESSION_MS + " ms"
                + (cluster != null ? ", tick " + TICK_MS + " ms, 3-server TestingCluster" : ", ensemble "
                + config.zkConnect()) + ", " + config.participants() + " participants "
                + (config.processes() ? "in child JVMs" : "in one JVM") + ", " + config.database().label()
                + ", database errors survived " + databaseErrors.get()
                + (config.unfenced() ? ", UNFENCED: writes without the gate" : "");
        HistoryChecker.Gap gap = result.longestWithoutLeader();
        String longestGap = String.format("longest time without a leader: %d ms in the %s election, from t=%.1fs to"
                        + " t=%.1fs", TimeUnit.NANOSECONDS.toMillis(gap.nanos()), gap.election(),
                (gap.fromNanos() - from) / 1e9, (gap.fromNanos() + gap.nanos() - from) / 1e9);
        return new Summary(line, mix, longestGap, !sawGranted.isEmpty() && !committed.isEmpty(), result);
    }

    private void startEnsemble() throws Exception {
        servers = new ArrayList<>();
        if (config.zkConnect() == null) {
            List<InstanceSpec> specs = new ArrayList<>();
            for (int id = 1; id <= 3; id++) {
                specs.add(new InstanceSpec(null, -1, -1, -1, true, id, TICK_MS, 0));
            }
            cluster = new TestingCluster(specs);
            cluster.start();
            for (InstanceSpec spec : cluster.getInstances()) {
                servers.add(new String[] {spec.getHostname(), String.valueOf(spec.getPort())});
            }
            return;
        }
        String hosts = config.zkConnect();
        int slash = hosts.indexOf('/');
        if (slash >= 0) {
            chroot = hosts.substring(slash);
            hosts = hosts.substring(0, slash);
        }
        for (String server : hosts.split(",")) {
            int colon = server.lastIndexOf(':');
            if (colon <= 0 || !server.substring(colon + 1).matches("\\d{1,5}")) {
                throw new IllegalArgumentException("--zk: expected host:port[,host:port...][/chroot], got '"
                        + config.zkConnect() + "'");
            }
            servers.add(new String[] {server.substring(0, colon).trim(), server.substring(colon + 1)});
        }
    }

    // ---- what participants report ------------------------------------------------------------------------------

    private void granted(Participant who, long token, long session, long at) {
        synchronized (grants) {
            grants.add(new HistoryChecker.Grant(at, who.election(), who.id, token, session));
            openBeliefs.computeIfAbsent(who.id, k -> new ArrayList<>()).add(new long[] {token, at});
            grants.notifyAll();
        }
    }

    private void ended(Participant who, long token, long now) {
        synchronized (grants) {
            Iterator<long[]> open = openBeliefs.getOrDefault(who.id, new ArrayList<>()).iterator();
            while (open.hasNext()) {
                long[] belief = open.next();
                if (belief[0] == token) {
                    open.remove();
                    beliefs.add(new HistoryChecker.Belief(who.election(), who.id, token, belief[1], now));
                    return;
                }
            }
        }
    }

    private void acknowledged(Participant who, long token, long seq) {
        synchronized (grants) {
            acks.add(new HistoryChecker.Ack(who.id, token, seq));
            if (writtenWith.add(who.id + "/" + token)) {
                grants.notifyAll();
            }
        }
    }

    /** A participant that is gone (its JVM killed, or closed) believes nothing any more. */
    private void endAll(Participant who) {
        long now = System.nanoTime();
        synchronized (grants) {
            List<long[]> open = openBeliefs.getOrDefault(who.id, new ArrayList<>());
            for (long[] belief : open) {
                beliefs.add(new HistoryChecker.Belief(who.election(), who.id, belief[0], belief[1], now));
            }
            open.clear();
        }
    }

    private boolean leading(Participant who) {
        synchronized (grants) {
            return !openBeliefs.getOrDefault(who.id, List.of()).isEmpty();
        }
    }

    private Member.Events events(Participant who) {
        return new Member.Events() {
            @Override
            public void granted(long token, long session, long atNanos) {
                ChaosCampaign.this.granted(who, token, session, atNanos);
            }

            @Override
            public void acknowledged(long token, long seq) {
                ChaosCampaign.this.acknowledged(who, token, seq);
            }

            @Override
            public void staleRejected(long token) {
                staleRejected.incrementAndGet();
            }

            @Override
            public void databaseError() {
                databaseErrors.incrementAndGet();
            }

            @Override
            public void ended(long token, long atNanos) {
                ChaosCampaign.this.ended(who, token, atNanos);
            }
        };
    }

    // ---- the nemesis ------------------------------------------------------------------------------------------

    /** The kinds of the first {@code n} faults this campaign will inject (their victims and lengths vary). */
    public List<String> plannedFaults(int n) {
        Random dice = new Random(config.seed() ^ FAULT_DICE_SALT);
        List<String> planned = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            planned.add(pickFault(dice));
        }
        return planned;
    }

    private String pickFault(Random dice) {
        int total = faultWeights.values().stream().mapToInt(Integer::intValue).sum();
        int roll = dice.nextInt(total);
        for (Map.Entry<String, Integer> fault : faultWeights.entrySet()) {
            roll -= fault.getValue();
            if (roll < 0) {
                return fault.getKey();
            }
        }
        throw new IllegalStateException("no fault picked");
    }

    private void inject(String fault) throws Exception {
        switch (fault) {
            case "partition" -> {
                Participant victim = pick();
                fault(fault);
                say("partition " + victim.id + (leading(victim) ? " (a leader)" : "") + " for longer than its"
                        + " session");
                victim.silence();
                Thread.sleep(SESSION_MS + 500 + random.nextInt(1000)); // the partition's length
                victim.resume();
            }
            case "pause" -> {
                Participant victim = pickLeader();
                fault(fault);
                boolean led = leading(victim);
                say("pause " + victim.id + (led ? " (a leader)" : "") + ": " + victim.pauseKind());
                int grantsBefore = grants.size();
                victim.pause();
                Thread.sleep(SESSION_MS + 500 + random.nextInt(1000)); // the GC pause
                if (led) {
                    awaitWriteElsewhere(victim, grantsBefore); // a leader's pause ends after a new leader wrote
                }
                victim.unpause();
            }
            case "kill server" -> {
                InstanceSpec spec = List.copyOf(cluster.getInstances()).get(random.nextInt(3));
                boolean leader = mode(spec).equals("leader");
                fault(leader ? "kill quorum leader" : "kill server");
                say("kill server " + spec.getServerId() + (leader ? " (quorum leader)" : ""));
                bounce(spec);
            }
            case "kill quorum leader" -> {
                InstanceSpec leader = quorumLeader();
                if (leader != null) {
                    fault(fault);
                    say("kill the quorum leader, server " + leader.getServerId());
                    bounce(leader);
                }
            }
            case "ensemble down" -> {
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
            }
            case "client-side expiry" -> {
                Participant victim = pick();
                fault(fault);
                say("expire " + victim.id + "'s session on the client only");
                victim.expireOnClient();
            }
            case "crash participant" -> {
                Participant victim = pick();
                fault(fault);
                say("crash " + victim.id + (leading(victim) ? " (a leader)" : "") + " with kill -KILL and start it"
                        + " again");
                victim.crashAndRestart();
            }
            case "terminate db connections" -> {
                fault(fault);
                say("terminate every other database connection");
                try (Connection c = config.database().dataSource().getConnection(); Statement s = c.createStatement()) {
                    s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname ="
                            + " current_database() AND pid <> pg_backend_pid()");
                }
            }
            case "restart database" -> {
                fault(fault);
                say("restart the database (" + (config.database().postgres() ? "crash: immediate shutdown" : "SHUTDOWN")
                        + ")");
                config.database().restart();
            }
            default -> throw new IllegalStateException("unknown fault " + fault);
        }
    }

    private void bounce(InstanceSpec spec) throws Exception {
        cluster.killServer(spec);
        Thread.sleep(500 + random.nextInt(1500)); // the server's downtime
        cluster.restartServer(spec);
    }

    /** Waits (bounded) until each election has granted leadership once. */
    private void awaitFirstLeaders() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CHILD_START_SECONDS);
        synchronized (grants) {
            while (grants.stream().map(HistoryChecker.Grant::election).distinct().count() < 2) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return; // the checker will report the election as leaderless from the start
                }
                TimeUnit.NANOSECONDS.timedWait(grants, left);
            }
        }
    }

    /**
     * Waits (bounded) until another participant of the victim's election has been granted leadership and has had a
     * write acknowledged with that grant: the paused leader's next write then comes after a newer token's.
     */
    private void awaitWriteElsewhere(Participant victim, int grantsBefore) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(4L * SESSION_MS);
        synchronized (grants) {
            while (grants.subList(grantsBefore, grants.size()).stream().noneMatch(g ->
                    g.election().equals(victim.election()) && !g.participant().equals(victim.id)
                            && writtenWith.contains(g.participant() + "/" + g.token()))) {
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
        config.out().printf("  t=%6.1fs nemesis: %s%n", (System.nanoTime() - started) / 1e9, what);
    }

    /** A participant that believes it leads, if there is one, else any: a pause is about a leader. */
    private Participant pickLeader() {
        List<Participant> leaders = participants.stream().filter(this::leading).toList();
        return leaders.isEmpty() ? participants.get(random.nextInt(participants.size()))
                : leaders.get(random.nextInt(leaders.size()));
    }

    /** Most often a participant that believes it leads (the interesting victim), else any. */
    private Participant pick() {
        List<Participant> leaders = participants.stream().filter(this::leading).toList();
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
        if (cluster != null) {
            for (InstanceSpec spec : cluster.getInstances()) {
                if (mode(spec).equals("down")) {
                    cluster.restartServer(spec);
                }
            }
        }
        for (Participant participant : participants) {
            participant.resume();
            participant.unpause();
        }
    }

    private List<HistoryChecker.Committed> readHistory() throws SQLException {
        List<HistoryChecker.Committed> rows = new ArrayList<>();
        try (Connection c = config.database().dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, resource, participant, token, seq, session FROM " + prefix
                     + "history ORDER BY id")) {
            while (rs.next()) {
                rows.add(new HistoryChecker.Committed(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getLong(4),
                        rs.getLong(5), rs.getLong(6)));
            }
        }
        return rows;
    }

    // ---- participants -----------------------------------------------------------------------------------------

    /** A participant: its proxies (one per server) and what the nemesis can do to it. */
    private abstract class Participant implements Closeable {
        final String id;
        final boolean selector;
        final List<TcpProxy> proxies = new ArrayList<>();

        Participant(String id, boolean selector) throws IOException {
            this.id = id;
            this.selector = selector;
            for (String[] server : servers) {
                proxies.add(new TcpProxy(server[0], Integer.parseInt(server[1])));
            }
        }

        String connectString() {
            return proxies.stream().map(TcpProxy::connectString).collect(Collectors.joining(",")) + chroot;
        }

        String election() {
            return Member.election(selector);
        }

        String path() {
            return "/chaos/" + prefix + election();
        }

        String resource() {
            return RESOURCE + election();
        }

        abstract void start() throws Exception;

        void awaitJoined() throws InterruptedException {}

        void silence() {
            proxies.forEach(TcpProxy::silence);
        }

        void resume() {
            proxies.forEach(TcpProxy::resume);
        }

        abstract String pauseKind();

        abstract void pause() throws Exception;

        abstract void unpause() throws Exception;

        abstract void expireOnClient() throws Exception;

        void crashAndRestart() throws Exception {
            throw new UnsupportedOperationException("only a participant in its own JVM can be crashed");
        }

        /** Ends its JVM at once, if it has one (on this JVM's exit). */
        void kill() {}

        void closeProxies() {
            for (TcpProxy proxy : proxies) {
                try {
                    proxy.close();
                } catch (IOException ignored) {
                    // best effort: the campaign is over
                }
            }
        }
    }

    /** A participant in this JVM; a pause freezes its worker (after its leadership check) and silences it. */
    private final class LocalParticipant extends Participant {
        private final CuratorFramework client;
        private final Member member;
        private volatile CountDownLatch frozen;

        LocalParticipant(String id, boolean selector, FenceGate gate) throws IOException {
            super(id, selector);
            // ensembleTracker(false): Curator would otherwise replace the proxies' addresses with the servers' own
            // (read from /zookeeper/config), bypass the proxies, and no partition would ever expire a session.
            client = CuratorFrameworkFactory.builder().connectString(connectString()).ensembleTracker(false)
                    .sessionTimeoutMs(SESSION_MS).connectionTimeoutMs(SESSION_MS)
                    .retryPolicy(new RetryNTimes(5, 200)).build();
            member = new Member(client, gate, config.unfenced() ? config.database().dataSource() : null,
                    prefix + "history", id, selector, path(), resource(), events(this),
                    this::holdIfFrozen);
        }

        @Override
        void start() {
            client.start();
            member.start();
        }

        @Override
        String pauseKind() {
            return "worker frozen after its token, connection silent";
        }

        @Override
        void pause() {
            frozen = new CountDownLatch(1);
            silence();
        }

        @Override
        void unpause() {
            resume();
            CountDownLatch hold = frozen;
            frozen = null;
            if (hold != null) {
                hold.countDown();
            }
        }

        @Override
        void expireOnClient() throws Exception {
            client.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
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

        @Override
        public void close() {
            unpause();
            member.close();
            client.close();
            endAll(this);
            closeProxies();
        }
    }

    /** A participant in its own JVM ({@link ChaosChild}): paused with kill -STOP, crashed with kill -KILL. */
    private final class ChildParticipant extends Participant {
        private volatile Process process;
        private volatile Writer commands;
        private volatile CountDownLatch joined;
        private volatile Thread pump;
        private volatile boolean stopped;
        private volatile boolean clockShared = true;
        /** A detached {@code sleep; kill -CONT}, so that a stopped child resumes even if this JVM is killed. */
        private volatile Process resumer;

        ChildParticipant(String id, boolean selector) throws IOException {
            super(id, selector);
        }

        @Override
        void start() throws IOException {
            ChaosDatabase db = config.database();
            joined = new CountDownLatch(1);
            Process child = ChildJvm.start(ChaosChild.class, List.of(connectString(), db.jdbcUrl(),
                    db.user() == null ? "-" : db.user(), db.password() == null ? "-" : db.password(), prefix, id,
                    election(), path(), resource(), String.valueOf(SESSION_MS),
                    config.unfenced() ? "unfenced" : "fenced"));
            commands = new OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8);
            process = child;
            CountDownLatch mine = joined;
            Thread reader = new Thread(() -> pump(child, mine), "chaos-pipe-" + id);
            reader.setDaemon(true);
            reader.start();
            pump = reader;
        }

        private void pump(Process child, CountDownLatch mine) {
            Member.Events events = events(this);
            try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (ChaosChild.replay(line, events)) {
                        continue;
                    }
                    if (line.startsWith("JOINED ")) {
                        long skew = System.nanoTime() - Long.parseLong(line.split(" ")[2]);
                        if (skew < 0 || skew > TimeUnit.SECONDS.toNanos(CHILD_START_SECONDS)) {
                            clockShared = false; // this OS gives each process its own nanoTime origin
                        }
                        mine.countDown();
                    } else {
                        config.out().println("  " + id + " said: " + line);
                    }
                }
            } catch (IOException ignored) {
                // the child is gone
            }
        }

        @Override
        void awaitJoined() throws InterruptedException {
            if (!joined.await(CHILD_START_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException(id + "'s JVM did not join within " + CHILD_START_SECONDS + " s");
            }
            if (!clockShared) {
                throw new IllegalStateException("process mode needs System.nanoTime() to be one clock for all"
                        + " processes (as on Linux and macOS); " + id + "'s clock differs from the campaign's");
            }
        }

        @Override
        String pauseKind() {
            return "kill -STOP (the whole JVM)";
        }

        @Override
        void pause() throws Exception {
            resumer = new ProcessBuilder("sh", "-c", "sleep " + RESUME_ANYWAY_SECONDS + " && kill -CONT "
                    + process.pid()).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            ChildJvm.signal("-STOP", process);
            stopped = true;
        }

        @Override
        void unpause() throws Exception {
            if (stopped) {
                ChildJvm.signal("-CONT", process);
                stopped = false;
            }
            Process pending = resumer;
            if (pending != null) {
                pending.destroy(); // the shell dies before its kill -CONT
                resumer = null;
            }
        }

        @Override
        void expireOnClient() throws IOException {
            command("EXPIRE");
        }

        private void command(String command) throws IOException {
            commands.write(command + "\n");
            commands.flush();
        }

        @Override
        void crashAndRestart() throws Exception {
            Process old = process;
            ChildJvm.signal("-KILL", old);
            old.onExit().get(30, TimeUnit.SECONDS);
            pump.join(TimeUnit.SECONDS.toMillis(10)); // every line the dead JVM wrote has been read
            stopped = false;
            endAll(this);
            start();
        }

        @Override
        void kill() {
            Process child = process;
            if (child != null) {
                child.destroyForcibly();
            }
        }

        @Override
        public void close() {
            Process child = process;
            if (child != null) {
                try {
                    unpause();
                    command("QUIT");
                    if (!child.waitFor(10, TimeUnit.SECONDS)) {
                        child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    }
                    Thread reader = pump;
                    if (reader != null) {
                        reader.join(TimeUnit.SECONDS.toMillis(10)); // every line it wrote has been read
                    }
                } catch (Exception e) {
                    child.destroyForcibly();
                }
            }
            endAll(this);
            closeProxies();
        }
    }
}
