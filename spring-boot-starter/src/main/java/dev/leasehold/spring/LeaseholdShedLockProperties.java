package dev.leasehold.spring;

import java.util.Locale;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Which fenced ShedLock {@code LockProvider} the starter makes when the application defines none:
 * {@code leasehold.shedlock.provider} ({@code jdbc} or {@code zookeeper}; unset: {@code jdbc} when there is a
 * {@code DataSource}, else {@code zookeeper} when there is a {@code CuratorFramework}) and
 * {@code leasehold.shedlock.base-path} (the ZooKeeper provider's nodes). Checked when bound: a bad value fails the
 * context at start with a message that names the property and the rule.
 *
 * <p>Thread-safety: an immutable record.
 *
 * @param provider {@code jdbc}, {@code zookeeper}, or null (unset) to choose by the beans there are
 * @param basePath the ZooKeeper provider's base path: absolute, no trailing slash; default {@code
 *                 /leasehold/shedlock}
 */
@ConfigurationProperties("leasehold.shedlock")
public record LeaseholdShedLockProperties(String provider, @DefaultValue("/leasehold/shedlock") String basePath) {

    /** {@code leasehold.shedlock.provider=jdbc}: the lock in the database's lease table. */
    public static final String JDBC = "jdbc";

    /** {@code leasehold.shedlock.provider=zookeeper}: the lock on ZooKeeper, under the base path. */
    public static final String ZOOKEEPER = "zookeeper";

    /**
     * Checks the values.
     *
     * @param provider {@code jdbc}, {@code zookeeper}, or null
     * @param basePath the ZooKeeper base path
     */
    public LeaseholdShedLockProperties {
        if (provider != null) {
            String normalized = provider.strip().toLowerCase(Locale.ROOT);
            if (!normalized.equals(JDBC) && !normalized.equals(ZOOKEEPER)) {
                throw new IllegalArgumentException(
                        "leasehold.shedlock.provider must be 'jdbc' or 'zookeeper', was '" + provider + "'");
            }
            provider = normalized;
        }
        if (basePath == null
                || !basePath.startsWith("/")
                || basePath.length() < 2
                || basePath.endsWith("/")
                || basePath.contains("//")) {
            throw new IllegalArgumentException("leasehold.shedlock.base-path must be an absolute ZooKeeper path"
                    + " without a trailing slash, e.g. /leasehold/shedlock, was '" + basePath + "'");
        }
    }
}
