package dev.leasehold.spring;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.apache.zookeeper.common.PathUtils;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code leasehold.lock.*} properties: the {@link FencedLockRegistry} the starter defines when the application has
 * no {@code LockRegistry} bean. Checked when bound: a bad value fails the context at start with a message that names
 * the property and the rule.
 *
 * <p>Thread-safety: an immutable record.
 *
 * @param backend {@code auto} (the default: ZooKeeper if the context has a {@code CuratorFramework}, else the database),
 *                {@code zookeeper}, {@code jdbc}, or {@code none} (no registry from the starter)
 * @param root    the ZooKeeper path under which each key's lock is; default {@code /leasehold/locks}
 * @param ttl     how long a database hold lasts unless renewed; 1 ms to 365 days, default 10 s (Spring Integration's
 *                {@code JdbcLockRegistry}'s); not used on ZooKeeper
 */
@ConfigurationProperties("leasehold.lock")
public record LeaseholdLockProperties(
        @DefaultValue("auto") String backend,
        @DefaultValue("/leasehold/locks") String root,
        @DefaultValue("10s") Duration ttl) {

    /**
     * Checks the values.
     *
     * @param backend {@code auto}, {@code zookeeper}, {@code jdbc} or {@code none}
     * @param root    an absolute ZooKeeper path below {@code /}
     * @param ttl     1 ms to 365 days
     */
    public LeaseholdLockProperties {
        String normalized = backend == null ? "" : backend.strip().toLowerCase(Locale.ROOT);
        if (!List.of("auto", "zookeeper", "jdbc", "none").contains(normalized)) {
            throw new IllegalArgumentException(
                    "leasehold.lock.backend must be 'auto', 'zookeeper', 'jdbc' or 'none', was '" + backend + "'");
        }
        backend = normalized;
        try {
            PathUtils.validatePath(root);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException(
                    "leasehold.lock.root must be an absolute ZooKeeper path such as /app/locks, was '" + root + "': "
                            + e.getMessage());
        }
        if (root.equals("/")) {
            throw new IllegalArgumentException("leasehold.lock.root must be a path below '/', such as /app/locks");
        }
        PropertyChecks.between(ttl, Duration.ofMillis(1), Duration.ofDays(365), "leasehold.lock.ttl");
    }
}
