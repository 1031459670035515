package dev.leasehold.spring;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code leasehold.zookeeper.*} properties: the Curator client the starter creates when the application defines no
 * {@code CuratorFramework} bean. Checked when bound, so a bad value fails the application context at start with a
 * message that names the property and what is allowed.
 *
 * <p>Thread-safety: immutable records.
 *
 * @param connectString     the ensemble, e.g. {@code zk1:2181,zk2:2181,zk3:2181}; unset: no client is created
 * @param sessionTimeout    the ZooKeeper session timeout asked for (the server bounds it to 2 to 20 ticks);
 *                          from 1 s to 10 min
 * @param connectionTimeout how long Curator waits for a connection; from 100 ms to 10 min
 * @param retry             the client's retry policy (exponential back-off)
 * @param ensembleTracker   whether Curator follows ensemble changes from the servers' config
 * @param namespace         a namespace prefixed to every path of the client; unset: none
 * @param startupConnectTimeout how long the context's start waits for the starter's client to connect before it
 *                          fails with a message naming the address; from 100 ms to 10 min
 * @param startDisconnected {@code true}: start even if the client is not connected within that time (readiness
 *                          then says REFUSING_TRAFFIC until it connects)
 */
@ConfigurationProperties("leasehold.zookeeper")
public record LeaseholdZookeeperProperties(
        String connectString,
        @DefaultValue("60s") Duration sessionTimeout,
        @DefaultValue("15s") Duration connectionTimeout,
        @DefaultValue Retry retry,
        @DefaultValue("true") boolean ensembleTracker,
        String namespace,
        @DefaultValue("30s") Duration startupConnectTimeout,
        @DefaultValue("false") boolean startDisconnected) {

    /**
     * The properties with every default.
     *
     * @return the defaults: no connect string, so no client is created
     */
    public static LeaseholdZookeeperProperties defaults() {
        return new LeaseholdZookeeperProperties(
                null,
                Duration.ofSeconds(60),
                Duration.ofSeconds(15),
                new Retry(Duration.ofSeconds(1), 3, Duration.ofSeconds(30)),
                true,
                null,
                Duration.ofSeconds(30),
                false);
    }

    /**
     * Checks every value; a blank connect string counts as unset.
     *
     * @param connectString     the ensemble, or {@code null}
     * @param sessionTimeout    the session timeout
     * @param connectionTimeout the connection timeout
     * @param retry             the retry policy
     * @param ensembleTracker   whether to track the ensemble
     * @param namespace         the namespace, or {@code null}
     * @param startupConnectTimeout the longest wait for the first connection at start
     * @param startDisconnected whether to start anyway when it did not connect in time
     */
    public LeaseholdZookeeperProperties {
        if (connectString != null && connectString.isBlank()) {
            connectString = null;
        }
        PropertyChecks.between(
                sessionTimeout, Duration.ofSeconds(1), Duration.ofMinutes(10), "leasehold.zookeeper.session-timeout");
        PropertyChecks.between(
                connectionTimeout,
                Duration.ofMillis(100),
                Duration.ofMinutes(10),
                "leasehold.zookeeper.connection-timeout");
        if (retry == null) {
            throw new IllegalArgumentException("leasehold.zookeeper.retry must not be null");
        }
        PropertyChecks.between(
                startupConnectTimeout,
                Duration.ofMillis(100),
                Duration.ofMinutes(10),
                "leasehold.zookeeper.startup-connect-timeout");
        if (namespace != null && (namespace.isBlank() || namespace.startsWith("/") || namespace.endsWith("/"))) {
            throw new IllegalArgumentException("leasehold.zookeeper.namespace must be a path without a leading or"
                    + " trailing '/', e.g. myapp, was '" + namespace + "'");
        }
    }

    /**
     * A copy with another value.
     *
     * @param connectString the ensemble
     * @return a copy with it
     */
    public LeaseholdZookeeperProperties withConnectString(String connectString) {
        return new LeaseholdZookeeperProperties(
                connectString,
                sessionTimeout,
                connectionTimeout,
                retry,
                ensembleTracker,
                namespace,
                startupConnectTimeout,
                startDisconnected);
    }

    /**
     * A copy with another value.
     *
     * @param sessionTimeout the session timeout
     * @return a copy with it
     */
    public LeaseholdZookeeperProperties withSessionTimeout(Duration sessionTimeout) {
        return withStartup(sessionTimeout, startupConnectTimeout, startDisconnected);
    }

    /**
     * A copy with other start-up values.
     *
     * @param startupConnectTimeout the longest wait for the first connection at start
     * @param startDisconnected     whether to start anyway when it did not connect in time
     * @return a copy with them
     */
    public LeaseholdZookeeperProperties withStartup(Duration startupConnectTimeout, boolean startDisconnected) {
        return withStartup(sessionTimeout, startupConnectTimeout, startDisconnected);
    }

    private LeaseholdZookeeperProperties withStartup(
            Duration sessionTimeout, Duration startupConnectTimeout, boolean startDisconnected) {
        return new LeaseholdZookeeperProperties(
                connectString,
                sessionTimeout,
                connectionTimeout,
                retry,
                ensembleTracker,
                namespace,
                startupConnectTimeout,
                startDisconnected);
    }

    /**
     * Curator's exponential back-off retry.
     *
     * @param baseSleep  the first sleep between retries; from 1 ms to 1 min
     * @param maxRetries how many retries; 0 to 29 (Curator's bound)
     * @param maxSleep   the longest sleep between retries; at least the base sleep, at most 10 min
     */
    public record Retry(
            @DefaultValue("1s") Duration baseSleep,
            @DefaultValue("3") int maxRetries,
            @DefaultValue("30s") Duration maxSleep) {

        /**
         * Checks every value.
         *
         * @param baseSleep  the first sleep
         * @param maxRetries how many retries
         * @param maxSleep   the longest sleep
         */
        public Retry {
            PropertyChecks.between(
                    baseSleep, Duration.ofMillis(1), Duration.ofMinutes(1), "leasehold.zookeeper.retry.base-sleep");
            if (maxRetries < 0 || maxRetries > 29) {
                throw new IllegalArgumentException(
                        "leasehold.zookeeper.retry.max-retries must be from 0 to 29, was " + maxRetries);
            }
            PropertyChecks.between(maxSleep, baseSleep, Duration.ofMinutes(10), "leasehold.zookeeper.retry.max-sleep");
        }
    }
}
