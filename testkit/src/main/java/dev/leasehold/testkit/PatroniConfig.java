package dev.leasehold.testkit;

import java.nio.file.Path;
import java.util.Objects;

/**
 * What a {@link PatroniCluster} starts: how many PostgreSQL members, in which replication mode, with which ZooKeeper
 * as Patroni's DCS, under which directory. Validated at construction; immutable and thread-safe.
 *
 * @param zookeeper   the DCS: a ZooKeeper connect string {@code host:port[,host:port...]} (a curator-test {@code
 *                    TestingServer}'s, an ensemble of processes, any real ZooKeeper); a chroot is not allowed (Patroni
 *                    keeps its keys under {@code /service/<scope>})
 * @param members     2 or 3 PostgreSQL members
 * @param synchronous true: {@code synchronous_mode: true} and {@code synchronous_mode_strict: true} (a commit is
 *                    acknowledged only once a standby has flushed it; with no standby, commits wait); false:
 *                    asynchronous streaming replication (Patroni's default)
 * @param directory   where the members' data, configuration and logs go; created if missing, left in place at close
 */
public record PatroniConfig(String zookeeper, int members, boolean synchronous, Path directory) {

    /**
     * @param zookeeper   the ZooKeeper connect string, without a chroot
     * @param members     2 or 3
     * @param synchronous synchronous (strict) or asynchronous replication
     * @param directory   where the members' files go
     * @throws IllegalArgumentException if a value is missing or out of range
     */
    public PatroniConfig {
        Objects.requireNonNull(zookeeper, "zookeeper");
        Objects.requireNonNull(directory, "directory");
        ConnectString connect = ConnectString.parse(zookeeper);
        if (!connect.chroot().isEmpty()) {
            throw new IllegalArgumentException(
                    "zookeeper must be host:port[,host:port...] without a chroot, was '" + zookeeper + "'");
        }
        if (members < 2 || members > 3) {
            throw new IllegalArgumentException("a Patroni cluster here has 2 or 3 members, was " + members);
        }
    }

    /**
     * Two members, asynchronous.
     *
     * @param zookeeper the ZooKeeper connect string
     * @param directory where the members' files go
     * @return the configuration
     */
    public static PatroniConfig of(String zookeeper, Path directory) {
        return new PatroniConfig(zookeeper, 2, false, directory);
    }

    /**
     * @param synchronous true for {@code synchronous_mode} (strict), false for asynchronous
     * @return this configuration in that mode
     */
    public PatroniConfig withSynchronous(boolean synchronous) {
        return new PatroniConfig(zookeeper, members, synchronous, directory);
    }

    /**
     * @param members 2 or 3
     * @return this configuration with that many members
     */
    public PatroniConfig withMembers(int members) {
        return new PatroniConfig(zookeeper, members, synchronous, directory);
    }
}
