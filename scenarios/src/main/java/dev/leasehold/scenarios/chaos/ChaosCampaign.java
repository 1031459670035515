package dev.leasehold.scenarios.chaos;

import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.testkit.ChaosDatabase;
import dev.leasehold.testkit.ChildJvm;
import dev.leasehold.testkit.Ensemble;
import dev.leasehold.testkit.HistoryChecker;
import dev.leasehold.testkit.HistoryTable;
import dev.leasehold.testkit.ZooKeeperPackage;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A seeded fault campaign. Participants (FencedLeaderLatch and FencedLeaderSelector, mixed; in this JVM or, in
 * process mode, each in its own JVM) connect to ZooKeeper through their own TCP proxies, one per server, and while
 * leader write through {@link FenceGate} into a history table. ZooKeeper is a 3-server TestingCluster the campaign
 * starts, three server processes of the installed ZooKeeper it starts ({@link Variant.EnsembleKind#PROCESSES}), or an
 * ensemble it is given ({@code zkConnect}; then it kills no servers). A {@link Nemesis} driven by the seed:
 * <ul>
 *   <li>partitions a participant (its proxies silent longer than the session);</li>
 *   <li>pauses one: in this JVM its worker is frozen after its token and its connection silenced; in process mode
 *       the whole JVM gets {@code kill -STOP} and, after another participant was granted, {@code kill -CONT};</li>
 *   <li>kills and restarts servers, the quorum leader too, and stops the whole ensemble shorter and longer than the
 *       session (own cluster only); freezes a server process with {@code kill -STOP} (process ensemble only);</li>
 *   <li>expires a session on the client only;</li>
 *   <li>crashes a participant's JVM with {@code kill -KILL} and starts a new one (process mode only);</li>
 *   <li>terminates the database's connections (PostgreSQL) and restarts the database (one the campaign started);</li>
 *   <li>fails a Patroni database over ({@link Failovers}): the primary killed, the standby promoted, the killed member
 *       back as a standby; first of all after replication was paused and a new leader advanced.</li>
 * </ul>
 * Then {@link HistoryChecker} judges the history ({@link HistoryTable}) against what the participants reported
 * ({@link Observations}). Not thread-safe: one campaign, one {@link #run()}.
 */
public final class ChaosCampaign {

    /** Latches and selectors run two elections (Curator's two recipes never see each other's nodes), each fencing
     *  its own resource. */
    public static final String RESOURCE = "chaos-ledger-";

    static final int TICK_MS = 200;
    static final int SESSION_MS = 2_000;

    /**
     * A campaign's settings, checked here.
     *
     * @param duration      how long the nemesis runs (positive)
     * @param participants  2 to 20
     * @param database      the database the participants write to
     * @param zkConnect     an ensemble to use (its servers are never killed), or null for a 3-server TestingCluster
     * @param processes     run each participant in its own JVM (needs kill: Linux or macOS)
     * @param minimumFaults the nemesis runs for {@code duration} and until it has injected at least this many faults
     * @param unfenced      participants write without the gate (no advance, no token check): the checker must then
     *                      find the stale writes that land
     * @param variant       the election (latches and selectors, lease, partitions) and the ensemble to start
     * @param out           where the nemesis's lines go
     */
    public record Config(
            Duration duration,
            long seed,
            int participants,
            ChaosDatabase database,
            String zkConnect,
            boolean processes,
            int minimumFaults,
            boolean unfenced,
            Variant variant,
            PrintStream out) {

        public Config {
            if (duration == null || duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException("duration must be positive, was " + duration);
            }
            if (participants < 2 || participants > 20) {
                throw new IllegalArgumentException("participants must be 2 to 20, was " + participants);
            }
            if (database == null || out == null || variant == null) {
                throw new IllegalArgumentException("database, variant and out are required");
            }
            if (zkConnect != null && variant.ensemble() != Variant.EnsembleKind.TESTING_CLUSTER) {
                throw new IllegalArgumentException("a given ensemble (zkConnect) and an ensemble to start ("
                        + variant.ensemble() + ") exclude each other");
            }
            if (zkConnect != null && !variant.usesZooKeeper()) {
                throw new IllegalArgumentException("a lease election uses no ZooKeeper: zkConnect makes no sense");
            }
            if (processes && variant.election() != Variant.Election.ZOOKEEPER) {
                throw new IllegalArgumentException(
                        "participants in child JVMs run latches and selectors only, not " + variant.election());
            }
            if (minimumFaults < 0) {
                throw new IllegalArgumentException("minimumFaults must be >= 0, was " + minimumFaults);
            }
        }

        /** {@code duration} of faults with {@code participants} in this JVM, fenced, on its own 3-server cluster. */
        public static Config of(
                Duration duration, long seed, int participants, ChaosDatabase database, PrintStream out) {
            return new Config(duration, seed, participants, database, null, false, 0, false, Variant.defaults(), out);
        }

        public Config withSeed(long seed) {
            Copy copy = new Copy(this);
            copy.seed = seed;
            return copy.build();
        }

        public Config withZkConnect(String zkConnect) {
            Copy copy = new Copy(this);
            copy.zkConnect = zkConnect;
            return copy.build();
        }

        public Config withProcesses(boolean processes) {
            Copy copy = new Copy(this);
            copy.processes = processes;
            return copy.build();
        }

        public Config withMinimumFaults(int minimumFaults) {
            Copy copy = new Copy(this);
            copy.minimumFaults = minimumFaults;
            return copy.build();
        }

        public Config withVariant(Variant variant) {
            Copy copy = new Copy(this);
            copy.variant = variant;
            return copy.build();
        }

        public Config withUnfenced(boolean unfenced) {
            Copy copy = new Copy(this);
            copy.unfenced = unfenced;
            return copy.build();
        }

        /** A mutable copy, so that each wither names only what it changes. */
        private static final class Copy {
            private final Duration duration;
            private long seed;
            private final int participants;
            private final ChaosDatabase database;
            private String zkConnect;
            private boolean processes;
            private int minimumFaults;
            private boolean unfenced;
            private Variant variant;
            private final PrintStream out;

            Copy(Config config) {
                duration = config.duration();
                seed = config.seed();
                participants = config.participants();
                database = config.database();
                zkConnect = config.zkConnect();
                processes = config.processes();
                minimumFaults = config.minimumFaults();
                unfenced = config.unfenced();
                variant = config.variant();
                out = config.out();
            }

            Config build() {
                return new Config(
                        duration,
                        seed,
                        participants,
                        database,
                        zkConnect,
                        processes,
                        minimumFaults,
                        unfenced,
                        variant,
                        out);
            }
        }
    }

    /**
     * @param line               the one summary line
     * @param faultMix           each fault kind's count, and the campaign's settings
     * @param longestGap         when and in which election the longest time without a leader was, to read with the
     *                           nemesis's timed lines
     * @param exercised          whether anything was tested: at least one grant and one accepted write (a campaign
     *                           whose participants cannot reach ZooKeeper or the database has violations=0 and proves
     *                           nothing)
     * @param failovers          how many times the database failed over (a Patroni database)
     * @param staleWriteExpected whether the campaign must find a stale write: its database is a Patroni cluster with
     *                           asynchronous replication, whose failovers lose acknowledged advances
     * @param result             the checker's verdict
     */
    public record Summary(
            String line,
            String faultMix,
            String longestGap,
            boolean exercised,
            int failovers,
            boolean staleWriteExpected,
            HistoryChecker.Result result) {

        /** @return whether the checker found a write accepted after a higher token's write was acknowledged (rule 6) */
        public boolean staleWriteFound() {
            return result.violations().stream().anyMatch(v -> v.startsWith("rule 6:"));
        }

        /**
         * @return whether the campaign went as it must: something was tested, and either no violation, or (where a
         *     stale write is expected) the checker found it
         */
        public boolean passed() {
            return exercised && (staleWriteExpected ? staleWriteFound() : result.ok());
        }

        /** @return the line that says whether the expected violation was found; empty where none is expected */
        public String expectation() {
            if (!staleWriteExpected) {
                return "";
            }
            return staleWriteFound()
                    ? "expected violation found: the checker found the stale write the asynchronous failover let"
                            + " through (rule 6), as it must; the campaign passes because it did"
                    : "EXPECTED VIOLATION NOT FOUND: an asynchronous failover after a new leader's advance should have"
                            + " let a stale write through, and the checker found none; the campaign fails";
        }
    }

    private final Config config;
    private final Nemesis nemesis;
    private final String prefix;
    private final Observations observations = new Observations();
    private final List<Participant> participants = new ArrayList<>();
    /** What the ensemble granted the participants' ask, once it is known. */
    private NegotiatedSession session = NegotiatedSession.asked();
    /** Whether the database is a Patroni cluster replicating asynchronously (as the campaign began). */
    private boolean asynchronousStore;

    public ChaosCampaign(Config config) {
        if (config.processes() && !ChildJvm.signalsSupported()) {
            throw new IllegalArgumentException("process mode needs kill -STOP/-CONT/-KILL (Linux or macOS); this is "
                    + System.getProperty("os.name"));
        }
        this.config = config;
        this.nemesis = new Nemesis(config);
        this.prefix = "lhc" + Long.toString(Math.abs(config.seed() % 1_000_000), 36) + "_"
                + Long.toString(System.nanoTime() % 10_000, 36) + "_";
    }

    /** The faults this campaign can inject, with their weights (0: not possible in this configuration). */
    Map<Fault, Integer> faultWeights() {
        return nemesis.weights();
    }

    /** The kinds of the first {@code n} faults this campaign will inject (their victims and lengths vary). */
    List<Fault> plannedFaults(int n) {
        return nemesis.planned(n);
    }

    public Summary run() throws Exception {
        asynchronousStore =
                config.database().patroniCluster().map(c -> !c.synchronous()).orElse(false);
        StoreConfig store = StoreConfig.defaults().withTablePrefix(prefix);
        FencedSchema.install(config.database().dataSource(), store);
        HistoryTable.create(config.database().dataSource(), prefix);
        long from;
        long to;
        Ensemble ensemble = null;
        ChildJvm.ExitHook killChildren =
                ChildJvm.onExit("chaos-kill-children", () -> participants.forEach(Participant::kill));
        try {
            ensemble = config.variant().usesZooKeeper() ? ensemble() : null;
            session = ensemble == null ? NegotiatedSession.asked() : NegotiatedSession.of(ensemble);
            if (ensemble != null) {
                config.out().println("  session timeout: " + session.label());
            }
            Participant.Setting setting = new Participant.Setting(config, prefix, ensemble, observations);
            FenceGate gate = new FenceGate(config.database().dataSource(), store);
            for (int i = 0; i < config.participants(); i++) {
                Participant participant = participant("p-" + i, i % 2 == 1, setting, gate);
                participants.add(participant);
                participant.start();
            }
            for (Participant participant : participants) {
                participant.awaitJoined();
            }
            // The time without a leader is measured from there on, not from the first election.
            observations.awaitLeadersIn(elections().size(), ChildParticipant.START_SECONDS, TimeUnit.SECONDS);
            to = nemesis.run(ensemble, participants, observations, session.ms());
            from = nemesis.started();
            // Lets the last leader settle and write before the campaign is closed: each election down to one leader,
            // which wrote after the nemesis stopped (a stale belief has ended by then); 3 sessions at most.
            observations.awaitSettled(elections(), to, 3L * session.ms(), TimeUnit.MILLISECONDS);
        } finally {
            for (Participant participant : participants) {
                participant.close();
            }
            if (ensemble != null) {
                ensemble.close();
            }
            killChildren.close();
        }
        // What the participants saw, taken before the table is read: every write acknowledged here committed
        // before this point, so a missing row is a lost write, never a late read.
        Observations.Snapshot saw = observations.snapshot();
        // After a failover the table is read from the new primary (the data source's URL finds it).
        config.database().patroniCluster().ifPresent(cluster -> cluster.awaitPrimary(Duration.ofSeconds(90)));
        List<HistoryChecker.Committed> committed =
                HistoryTable.read(config.database().dataSource(), prefix);
        HistoryChecker.Result result =
                HistoryChecker.check(committed, saw.grants(), saw.acks(), saw.beliefs(), elections(), from, to);
        return summary(saw, committed, result, ensemble, from);
    }

    /** One participant of this campaign's kind. */
    private Participant participant(String id, boolean selector, Participant.Setting setting, FenceGate gate)
            throws IOException {
        return switch (config.variant().election()) {
            case LEASE -> new LeaseParticipant(id, setting);
            case PARTITIONS -> new PartitionParticipant(id, setting, gate);
            case ZOOKEEPER -> config.processes()
                    ? new ChildParticipant(id, selector, setting)
                    : new LocalParticipant(id, selector, setting, gate);
        };
    }

    /** The elections the checker judges: latch and selector, the lease, or one per partition. */
    List<String> elections() {
        return switch (config.variant().election()) {
            case LEASE -> List.of(LeaseParticipant.ELECTION);
            case PARTITIONS -> PartitionParticipant.elections(config.variant().partitions());
            case ZOOKEEPER -> List.of(Member.election(false), Member.election(true));
        };
    }

    /** The ensemble the participants use: a given one, or three servers started here (in this JVM or as processes). */
    private Ensemble ensemble() throws IOException {
        if (config.zkConnect() != null) {
            return Ensemble.given(config.zkConnect());
        }
        if (config.variant().ensemble() == Variant.EnsembleKind.PROCESSES) {
            ZooKeeperPackage zooKeeper = ZooKeeperPackage.find()
                    .orElseThrow(() -> new IllegalStateException("no ZooKeeper package: " + ZooKeeperPackage.HINT));
            return Ensemble.processes(zooKeeper, 3, TICK_MS);
        }
        return Ensemble.start(3, TICK_MS);
    }

    /** How participants were elected, with the timing that bounds a takeover. */
    private String electionLabel(Ensemble ensemble) {
        String zooKeeper = "session " + session.label()
                + (ensemble != null && ensemble.owned()
                        ? ", tick " + TICK_MS + " ms, " + ensemble.describe()
                        : ", ensemble " + config.zkConnect());
        return switch (config.variant().election()) {
            case LEASE -> "lease elections on the database (lease "
                    + LeaseParticipant.TIMING.leaseDuration().toMillis() + " ms, renew deadline "
                    + LeaseParticipant.TIMING.renewDeadline().toMillis() + " ms, retry "
                    + LeaseParticipant.TIMING.retryPeriod().toMillis() + " ms), no ZooKeeper";
            case PARTITIONS -> config.variant().partitions() + " partitions (FencedPartitions), " + zooKeeper;
            case ZOOKEEPER -> zooKeeper;
        };
    }

    private Summary summary(
            Observations.Snapshot saw,
            List<HistoryChecker.Committed> committed,
            HistoryChecker.Result result,
            Ensemble ensemble,
            long from) {
        String line = String.format(
                "seed=%d faults=%d grants=%d writes accepted=%d stale rejected=%d overlapping"
                        + " beliefs=%d max time without a leader=%dms violations=%d",
                config.seed(),
                nemesis.count(),
                saw.grants().size(),
                committed.size(),
                observations.staleRejected(),
                result.overlappingBeliefs(),
                TimeUnit.NANOSECONDS.toMillis(result.maxNanosWithoutLeader()),
                result.violations().size());
        String mix = nemesis.mix() + "; " + electionLabel(ensemble)
                + ", " + config.participants() + " participants "
                + (config.processes() ? "in child JVMs" : "in one JVM") + ", "
                + config.database().label()
                + ", database errors survived " + observations.databaseErrors()
                + (config.unfenced() ? ", UNFENCED: writes without the gate" : "");
        HistoryChecker.Gap gap = result.longestWithoutLeader();
        String longestGap = String.format(
                "longest time without a leader: %d ms in the %s election, from t=%.1fs to" + " t=%.1fs",
                TimeUnit.NANOSECONDS.toMillis(gap.nanos()),
                gap.election(),
                (gap.fromNanos() - from) / 1e9,
                (gap.fromNanos() + gap.nanos() - from) / 1e9);
        return new Summary(
                line,
                mix,
                longestGap,
                !saw.grants().isEmpty() && !committed.isEmpty(),
                nemesis.failovers(),
                asynchronousStore,
                result);
    }
}
