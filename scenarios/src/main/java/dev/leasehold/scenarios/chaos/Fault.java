package dev.leasehold.scenarios.chaos;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Random;

/** The faults the nemesis can inject, each with its weight when it is possible in a campaign's configuration. */
enum Fault {
    PARTITION("partition", 20),
    PAUSE("pause", 20),
    KILL_SERVER("kill server", 10),
    KILL_QUORUM_LEADER("kill quorum leader", 8),
    ENSEMBLE_DOWN("ensemble down", 7),
    CLIENT_SIDE_EXPIRY("client-side expiry", 12),
    CRASH_PARTICIPANT("crash participant", 8),
    TERMINATE_DB_CONNECTIONS("terminate db connections", 8),
    RESTART_DATABASE("restart database", 7),
    /** kill -STOP of one server process (a GC pause of a server), then kill -CONT; a process ensemble only. */
    FREEZE_SERVER("freeze server", 10),
    /**
     * The database's primary killed (SIGKILL of PostgreSQL); Patroni promotes the standby and brings the killed member
     * back as a standby (pg_rewind); a Patroni database only.
     */
    FAILOVER("failover", 10),
    /**
     * Replication to the standby paused (the primary's walsender stopped), a leader paused until another took over
     * and advanced, the primary killed right after, the paused leader released first: on an asynchronous cluster the
     * promoted standby lacks the advance and the stale write passes. A Patroni database only; the first fault of
     * every Patroni campaign.
     */
    FAILOVER_AFTER_ADVANCE("failover after a new leader's advance", 6);

    private final String label;
    private final int weight;

    Fault(String label, int weight) {
        this.label = label;
        this.weight = weight;
    }

    /** How the fault is named in the nemesis's lines and in the fault mix. */
    String label() {
        return label;
    }

    /** Whether this fault can be injected in a campaign so configured. */
    boolean possibleIn(ChaosCampaign.Config config) {
        boolean zooKeeper = config.variant().usesZooKeeper();
        boolean ownCluster = config.zkConnect() == null && zooKeeper;
        return switch (this) {
            case PARTITION, PAUSE -> true;
            case CLIENT_SIDE_EXPIRY -> zooKeeper;
            case KILL_SERVER, KILL_QUORUM_LEADER, ENSEMBLE_DOWN -> ownCluster;
            case FREEZE_SERVER -> ownCluster && config.variant().ensemble() == Variant.EnsembleKind.PROCESSES;
            case CRASH_PARTICIPANT -> config.processes();
                // Only a database the campaign started: on a --jdbc database it would kill other applications'
                // connections.
            case TERMINATE_DB_CONNECTIONS -> config.database().postgres()
                    && config.database().restartable();
            case RESTART_DATABASE -> config.database().restartable();
            case FAILOVER -> config.database().patroniCluster().isPresent();
            case FAILOVER_AFTER_ADVANCE -> config.database().patroniCluster().isPresent() && !config.processes();
        };
    }

    /** Every fault with its weight in a campaign so configured (0: not possible there), in declaration order. */
    static Map<Fault, Integer> weights(ChaosCampaign.Config config) {
        Map<Fault, Integer> weights = new EnumMap<>(Fault.class);
        for (Fault fault : values()) {
            weights.put(fault, fault.possibleIn(config) ? fault.weight : 0);
        }
        return Collections.unmodifiableMap(weights);
    }

    /**
     * The kind of fault number {@code count} (from 0): on a Patroni database the first is always {@link
     * #FAILOVER_AFTER_ADVANCE} (so that even a short campaign fails the database over and shows what the replication
     * mode does to an advance), every other a weighted draw.
     */
    static Fault next(int count, Map<Fault, Integer> weights, Random dice) {
        if (count == 0 && weights.get(FAILOVER_AFTER_ADVANCE) > 0) {
            return FAILOVER_AFTER_ADVANCE;
        }
        return pick(weights, dice);
    }

    /** A weighted draw: the only use of {@code dice}, so that a seed fixes the sequence of fault kinds. */
    static Fault pick(Map<Fault, Integer> weights, Random dice) {
        int total = weights.values().stream().mapToInt(Integer::intValue).sum();
        int roll = dice.nextInt(total);
        for (Map.Entry<Fault, Integer> fault : weights.entrySet()) {
            roll -= fault.getValue();
            if (roll < 0) {
                return fault.getKey();
            }
        }
        throw new IllegalStateException("no fault picked");
    }
}
