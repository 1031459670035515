package dev.leasehold.scenarios;

import dev.leasehold.testkit.ChaosDatabase;
import dev.leasehold.testkit.NotRoot;
import dev.leasehold.testkit.Patroni;
import dev.leasehold.testkit.PatroniCluster;
import dev.leasehold.testkit.PatroniConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.curator.test.TestingServer;

/**
 * {@code chaos --patroni} and {@code --patroni-async}'s store: a Patroni cluster of two PostgreSQL 15 members with a
 * ZooKeeper of its own as its DCS (a TestingServer, apart from the campaign's ensemble, whose faults would otherwise
 * fail the database over too), in a temporary directory; everything stopped and deleted on close. Not thread-safe.
 */
final class PatroniStore implements AutoCloseable {

    private final Path directory;
    private final TestingServer zookeeper;
    private final PatroniCluster cluster;

    private PatroniStore(Path directory, TestingServer zookeeper, PatroniCluster cluster) {
        this.directory = directory;
        this.zookeeper = zookeeper;
        this.cluster = cluster;
    }

    /**
     * Starts the cluster, synchronous (strict) or asynchronous.
     *
     * @throws EnvException if the packages are missing, this JVM is root, or the cluster does not start
     */
    static PatroniStore start(boolean synchronous, String option, PrintStream out) {
        if (!Patroni.available()) {
            throw new EnvException(option + ": " + Patroni.hint(), null);
        }
        if (NotRoot.isRoot()) {
            throw new EnvException(
                    option + ": Patroni and PostgreSQL refuse to run as root: run chaos as an unprivileged user", null);
        }
        Path directory = null;
        TestingServer zookeeper = null;
        try {
            directory = Files.createTempDirectory("leasehold-chaos-patroni-");
            zookeeper = new TestingServer();
            long from = System.nanoTime();
            PatroniCluster cluster =
                    PatroniCluster.start(new PatroniConfig(zookeeper.getConnectString(), 2, synchronous, directory));
            out.printf(
                    "  Patroni cluster of 2 PostgreSQL 15 members (%s) up in %.1f s, its DCS a ZooKeeper of its own%n",
                    synchronous ? "synchronous_mode strict" : "asynchronous", (System.nanoTime() - from) / 1e9);
            return new PatroniStore(directory, zookeeper, cluster);
        } catch (Exception e) {
            closeQuietly(zookeeper);
            delete(directory);
            throw new EnvException(option + ": the Patroni cluster did not start: " + e.getMessage(), e);
        }
    }

    /** @return the campaign's database: the cluster's primary of the moment */
    ChaosDatabase database() {
        return ChaosDatabase.patroni(cluster);
    }

    @Override
    public void close() {
        cluster.close();
        closeQuietly(zookeeper);
        delete(directory);
    }

    private static void closeQuietly(TestingServer zookeeper) {
        if (zookeeper == null) {
            return;
        }
        try {
            zookeeper.close();
        } catch (IOException e) {
            // the campaign is over; a temporary server
        }
    }

    private static void delete(Path directory) {
        if (directory == null) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temporary directory: left behind if it cannot be read
        }
    }
}
