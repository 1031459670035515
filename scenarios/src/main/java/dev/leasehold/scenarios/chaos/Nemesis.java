package dev.leasehold.scenarios.chaos;

import dev.leasehold.testkit.Ensemble;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.curator.test.InstanceSpec;

/**
 * Picks faults by the seed and injects them into the participants, the ensemble and the database, one at a time
 * with a random quiet time between them. Not thread-safe: it runs on the campaign's thread.
 */
final class Nemesis {

    private static final long FAULT_DICE_SALT = 0x5DEECE66DL;

    private final ChaosCampaign.Config config;
    private final Map<Fault, Integer> weights;
    /** Victims, lengths and quiet times. */
    private final Random random;
    /** Decides only which fault comes next, so that a seed fixes the sequence of fault kinds. */
    private final Random faultDice;
    /** What was injected, by the name the fault mix shows (a killed server may turn out to be the quorum leader). */
    private final Map<String, Integer> injected = new TreeMap<>();

    private Ensemble ensemble;
    private List<Participant> participants;
    private Observations observations;
    /** The database's failovers, on a Patroni database; null otherwise. */
    private Failovers failovers;
    /** The session timeout the ensemble negotiated (or the lease's duration): what partitions and pauses outlast. */
    private int sessionMs = ChaosCampaign.SESSION_MS;
    /** When the nemesis began: the origin of its timed lines. */
    private volatile long started = System.nanoTime();

    Nemesis(ChaosCampaign.Config config) {
        this.config = config;
        this.weights = Fault.weights(config);
        this.random = new Random(config.seed());
        this.faultDice = dice(config.seed());
    }

    private static Random dice(long seed) {
        return new Random(seed ^ FAULT_DICE_SALT);
    }

    Map<Fault, Integer> weights() {
        return weights;
    }

    /** The kinds of the first {@code n} faults a campaign with this seed will inject. */
    List<Fault> planned(int n) {
        Random dice = dice(config.seed());
        return IntStream.range(0, n).mapToObj(i -> Fault.next(i, weights, dice)).toList();
    }

    /**
     * Injects faults from now for {@code config.duration()}, and on until at least {@code config.minimumFaults()}
     * were injected; then heals what it broke. Returns when it stopped injecting, before healing.
     */
    long run(Ensemble ensemble, List<Participant> participants, Observations observations, int sessionMs)
            throws Exception {
        attach(ensemble, participants, observations, sessionMs);
        this.failovers = config.database()
                .patroniCluster()
                .map(cluster -> new Failovers(cluster, participants, observations, sessionMs, this::say))
                .orElse(null);
        started = System.nanoTime();
        long end = started + config.duration().toNanos();
        for (int count = 0; System.nanoTime() < end || count < config.minimumFaults(); count++) {
            Thread.sleep(300 + random.nextInt(900)); // the quiet time between faults
            if (System.nanoTime() >= end && count >= config.minimumFaults()) {
                break;
            }
            inject(Fault.next(count, weights, faultDice));
        }
        long stopped = System.nanoTime();
        heal();
        return stopped;
    }

    /** What the faults act on; {@link #run} attaches them itself. */
    void attach(Ensemble ensemble, List<Participant> participants, Observations observations, int sessionMs) {
        this.ensemble = ensemble;
        this.sessionMs = sessionMs;
        this.participants = participants;
        this.observations = observations;
    }

    /** When it began injecting: the origin of its timed lines and of the checked period. */
    long started() {
        return started;
    }

    int count() {
        return injected.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** How many times the database was failed over. */
    int failovers() {
        return injected.getOrDefault(Fault.FAILOVER.label(), 0)
                + injected.getOrDefault(Fault.FAILOVER_AFTER_ADVANCE.label(), 0);
    }

    /** Each injected fault's count, e.g. {@code kill quorum leader 3, partition 5}. */
    String mix() {
        return injected.entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }

    void inject(Fault fault) throws Exception {
        switch (fault) {
            case PARTITION -> {
                Participant victim = pick();
                count(fault.label());
                say("partition " + victim.id + (victim.leading() ? " (a leader)" : "") + " for longer than its"
                        + " session");
                victim.silence();
                Thread.sleep(sessionMs + 500 + random.nextInt(1000)); // the partition's length
                victim.resume();
            }
            case PAUSE -> {
                Participant victim = pickLeader();
                count(fault.label());
                Set<String> ledIn = observations.electionsLedBy(victim.id);
                boolean led = !ledIn.isEmpty();
                say("pause " + victim.id + (led ? " (a leader)" : "") + ": " + victim.pauseKind());
                int grantsBefore = observations.grantCount();
                victim.pause();
                Thread.sleep(sessionMs + 500 + random.nextInt(1000)); // the GC pause
                if (led) {
                    // A leader's pause ends after a new leader of its election wrote: its next write comes after a
                    // newer token's.
                    observations.awaitWriteElsewhere(
                            ledIn, victim.id, grantsBefore, 4L * sessionMs, TimeUnit.MILLISECONDS);
                }
                victim.unpause();
            }
            case KILL_SERVER -> {
                InstanceSpec spec = ensemble.instances().get(random.nextInt(3));
                boolean leader = Ensemble.isQuorumLeader(spec);
                count((leader ? Fault.KILL_QUORUM_LEADER : Fault.KILL_SERVER).label());
                say("kill server " + spec.getServerId() + (leader ? " (quorum leader)" : ""));
                bounce(spec);
            }
            case KILL_QUORUM_LEADER -> {
                InstanceSpec leader = awaitQuorumLeader();
                if (leader == null) {
                    say("no quorum leader within " + 2L * sessionMs + " ms: nothing killed");
                } else {
                    count(fault.label());
                    say("kill the quorum leader, server " + leader.getServerId());
                    bounce(leader);
                }
            }
            case FREEZE_SERVER -> {
                InstanceSpec spec = ensemble.instances()
                        .get(random.nextInt(ensemble.instances().size()));
                boolean leader = Ensemble.isQuorumLeader(spec);
                boolean longer = random.nextBoolean();
                count(fault.label() + (leader ? " (quorum leader)" : "") + (longer ? " > session" : " < session"));
                say("freeze server " + spec.getServerId() + (leader ? " (quorum leader)" : "") + " with kill -STOP for "
                        + (longer ? "longer" : "shorter") + " than the session");
                ensemble.freeze(spec);
                Thread.sleep(longer ? sessionMs + 500 + random.nextInt(1000) : sessionMs / 3); // the server's pause
                ensemble.restart(spec); // kill -CONT
            }
            case ENSEMBLE_DOWN -> {
                boolean longer = random.nextBoolean();
                count(fault.label() + (longer ? " > session" : " < session"));
                say("stop the whole ensemble for " + (longer ? "longer" : "shorter") + " than the session");
                for (InstanceSpec spec : ensemble.instances()) {
                    ensemble.kill(spec);
                }
                Thread.sleep(longer ? sessionMs + 1_000 : sessionMs / 3); // the outage
                for (InstanceSpec spec : ensemble.instances()) {
                    ensemble.restart(spec);
                }
            }
            case CLIENT_SIDE_EXPIRY -> {
                Participant victim = pick();
                count(fault.label());
                say("expire " + victim.id + "'s session on the client only");
                victim.expireOnClient();
            }
            case CRASH_PARTICIPANT -> {
                Participant victim = pick();
                count(fault.label());
                say("crash " + victim.id + (victim.leading() ? " (a leader)" : "") + " with kill -KILL and start it"
                        + " again");
                victim.crashAndRestart();
            }
            case TERMINATE_DB_CONNECTIONS -> {
                count(fault.label());
                say("terminate every other database connection");
                try (Connection c = config.database().dataSource().getConnection();
                        Statement s = c.createStatement()) {
                    s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname ="
                            + " current_database() AND pid <> pg_backend_pid()");
                }
            }
            case FAILOVER -> {
                count(fault.label());
                failovers.failover();
            }
            case FAILOVER_AFTER_ADVANCE -> {
                count(fault.label());
                failovers.failoverAfterAdvance(pickLeader());
            }
            case RESTART_DATABASE -> {
                count(fault.label());
                say("restart the database (" + (config.database().postgres() ? "crash: immediate shutdown" : "SHUTDOWN")
                        + ")");
                config.database().restart();
            }
        }
    }

    private void bounce(InstanceSpec spec) throws Exception {
        ensemble.kill(spec);
        Thread.sleep(500 + random.nextInt(1500)); // the server's downtime
        ensemble.restart(spec);
    }

    private void heal() throws Exception {
        if (ensemble != null) {
            ensemble.restartTheDown();
        }
        for (Participant participant : participants) {
            participant.resume();
            participant.unpause();
        }
    }

    /**
     * The quorum's leader, waited for up to two sessions: right after a server was frozen, killed or restarted the
     * servers may still be electing one (a campaign once found none and injected one fault fewer than its seed
     * planned). Asks each server {@code srvr} every 100 ms: ZooKeeper tells a client nothing of a quorum election.
     */
    private InstanceSpec awaitQuorumLeader() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2L * sessionMs);
        boolean said = false;
        while (true) {
            Optional<InstanceSpec> leader = ensemble.quorumLeader();
            if (leader.isPresent() || System.nanoTime() >= deadline) {
                return leader.orElse(null);
            }
            if (!said) {
                say("no quorum leader yet: waiting for the servers to elect one");
                said = true;
            }
            Thread.sleep(100); // the poll's interval
        }
    }

    private void count(String kind) {
        injected.merge(kind, 1, Integer::sum);
    }

    private void say(String what) {
        config.out().printf("  t=%6.1fs nemesis: %s%n", (System.nanoTime() - started) / 1e9, what);
    }

    /** A participant that believes it leads, if there is one, else any: a pause is about a leader. */
    private Participant pickLeader() {
        List<Participant> leaders =
                participants.stream().filter(Participant::leading).toList();
        return leaders.isEmpty()
                ? participants.get(random.nextInt(participants.size()))
                : leaders.get(random.nextInt(leaders.size()));
    }

    /** Most often a participant that believes it leads (the interesting victim), else any. */
    private Participant pick() {
        List<Participant> leaders =
                participants.stream().filter(Participant::leading).toList();
        if (!leaders.isEmpty() && random.nextInt(4) > 0) {
            return leaders.get(random.nextInt(leaders.size()));
        }
        return participants.get(random.nextInt(participants.size()));
    }
}
