package dev.leasehold.scenarios.chaos;

/**
 * What a campaign elects with and on which ensemble, checked here.
 *
 * @param ensemble   where ZooKeeper runs when the campaign starts it
 * @param election   how participants are elected
 * @param partitions with {@link Election#PARTITIONS}, how many partitions (1 to 10,000); otherwise 0
 */
public record Variant(EnsembleKind ensemble, Election election, int partitions) {

    /** Where the campaign's own ZooKeeper runs. */
    public enum EnsembleKind {
        /** curator-test's TestingCluster: three servers in the campaign's JVM (the default). */
        TESTING_CLUSTER,
        /** Three server processes of the installed ZooKeeper package (testkit's ProcessEnsemble). */
        PROCESSES
    }

    /** How participants are elected. */
    public enum Election {
        /** FencedLeaderLatch and FencedLeaderSelector, mixed, in two elections (the default). */
        ZOOKEEPER,
        /** LeaseElection on the campaign's database: no ZooKeeper at all. */
        LEASE,
        /** FencedPartitions: one election per partition, each fencing its own resource. */
        PARTITIONS
    }

    /** The highest partition count FencedPartitions accepts. */
    public static final int MAX_PARTITIONS = 10_000;

    public Variant {
        if (ensemble == null || election == null) {
            throw new IllegalArgumentException("ensemble and election are required");
        }
        if (election == Election.PARTITIONS && (partitions < 1 || partitions > MAX_PARTITIONS)) {
            throw new IllegalArgumentException(
                    "partitions must be 1 to " + MAX_PARTITIONS + " with partition ownership, was " + partitions);
        }
        if (election != Election.PARTITIONS && partitions != 0) {
            throw new IllegalArgumentException("partitions is only for partition ownership, was " + partitions);
        }
        if (election == Election.LEASE && ensemble != EnsembleKind.TESTING_CLUSTER) {
            throw new IllegalArgumentException("a lease election uses no ZooKeeper: no ensemble to choose");
        }
    }

    /** Latches and selectors on a TestingCluster. */
    public static Variant defaults() {
        return new Variant(EnsembleKind.TESTING_CLUSTER, Election.ZOOKEEPER, 0);
    }

    public Variant withEnsemble(EnsembleKind ensemble) {
        return new Variant(ensemble, election, partitions);
    }

    /** Lease elections on the database. */
    public Variant withLease() {
        return new Variant(ensemble, Election.LEASE, 0);
    }

    /** Partition ownership over {@code count} partitions. */
    public Variant withPartitions(int count) {
        return new Variant(ensemble, Election.PARTITIONS, count);
    }

    /** Whether the campaign needs a ZooKeeper ensemble. */
    boolean usesZooKeeper() {
        return election != Election.LEASE;
    }
}
