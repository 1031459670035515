package dev.leasehold.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.curator.test.TestingServer;

/**
 * A {@link PatroniCluster} of two members with a ZooKeeper of its own as its DCS (a curator-test {@code
 * TestingServer}, apart from any ensemble a test or campaign fails), in a temporary directory; {@link #close()} stops
 * the cluster and the server and deletes the directory. Shared by {@link WithPatroni}'s resolver and {@code chaos
 * --patroni}. Not thread-safe.
 */
public final class StandalonePatroni implements AutoCloseable {

    private final Path directory;
    private final TestingServer zookeeper;
    private final PatroniCluster cluster;

    private StandalonePatroni(Path directory, TestingServer zookeeper, PatroniCluster cluster) {
        this.directory = directory;
        this.zookeeper = zookeeper;
        this.cluster = cluster;
    }

    /**
     * Starts the server and the cluster; on failure stops what started and deletes the directory.
     *
     * @param synchronous strict synchronous mode, else asynchronous
     * @param prefix      the temporary directory's name prefix
     * @return the running cluster
     * @throws Exception whatever the start threw
     */
    public static StandalonePatroni start(boolean synchronous, String prefix) throws Exception {
        Path directory = null;
        TestingServer zookeeper = null;
        try {
            directory = Files.createTempDirectory(prefix);
            zookeeper = new TestingServer(DrawnPorts.one()); // a port no other server of this JVM was given
            PatroniCluster cluster =
                    PatroniCluster.start(new PatroniConfig(zookeeper.getConnectString(), 2, synchronous, directory));
            return new StandalonePatroni(directory, zookeeper, cluster);
        } catch (Exception e) {
            try {
                closeServer(zookeeper);
            } catch (UncheckedIOException suppressed) {
                e.addSuppressed(suppressed);
            }
            delete(directory);
            throw e;
        }
    }

    /** @return the cluster */
    public PatroniCluster cluster() {
        return cluster;
    }

    /**
     * Stops the cluster and its ZooKeeper, deletes the directory (what cannot be read is left behind).
     *
     * @throws UncheckedIOException if the ZooKeeper server did not close
     */
    @Override
    public void close() {
        cluster.close();
        try {
            closeServer(zookeeper);
        } finally {
            delete(directory);
        }
    }

    private static void closeServer(TestingServer zookeeper) {
        if (zookeeper == null) {
            return;
        }
        try {
            zookeeper.close();
        } catch (IOException e) {
            throw new UncheckedIOException("closing the Patroni cluster's ZooKeeper", e);
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
