package dev.leasehold.spring;

import dev.leasehold.store.StoreConfig;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code leasehold.*} properties. Each record checks its values when it is bound, so a bad value fails the
 * application context at start with a message that names the property and what is allowed.
 *
 * <p>Thread-safety: immutable records.
 *
 * @param zookeeper the Curator client the starter creates when the application defines none
 * @param election  where the elections of the {@code Candidate} beans take place
 * @param store     the fenced store's beans, made when the application has a {@code DataSource}
 */
@ConfigurationProperties("leasehold")
public record LeaseholdProperties(
        @DefaultValue Zookeeper zookeeper, @DefaultValue Election election, @DefaultValue Store store) {

    /**
     * The properties with every default.
     *
     * @return the defaults: no connect string, so no client is created
     */
    public static LeaseholdProperties defaults() {
        return new LeaseholdProperties(
                new Zookeeper(
                        null,
                        Duration.ofSeconds(60),
                        Duration.ofSeconds(15),
                        new Retry(Duration.ofSeconds(1), 3, Duration.ofSeconds(30)),
                        true,
                        null,
                        Duration.ofSeconds(30),
                        false),
                new Election("/leasehold/election", Duration.ofSeconds(10), null, null),
                new Store(StoreConfig.DEFAULT_PREFIX, true, Duration.ofSeconds(30)));
    }

    /**
     * A copy with another value.
     *
     * @param zookeeper the client's properties
     * @return a copy with these
     */
    public LeaseholdProperties withZookeeper(Zookeeper zookeeper) {
        return new LeaseholdProperties(zookeeper, election, store);
    }

    /**
     * A copy with another value.
     *
     * @param election the elections' properties
     * @return a copy with these
     */
    public LeaseholdProperties withElection(Election election) {
        return new LeaseholdProperties(zookeeper, election, store);
    }

    /**
     * A copy with another value.
     *
     * @param store the store's properties
     * @return a copy with these
     */
    public LeaseholdProperties withStore(Store store) {
        return new LeaseholdProperties(zookeeper, election, store);
    }

    /**
     * The Curator client the starter creates when the application defines no {@code CuratorFramework} bean.
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
    public record Zookeeper(
            String connectString,
            @DefaultValue("60s") Duration sessionTimeout,
            @DefaultValue("15s") Duration connectionTimeout,
            @DefaultValue Retry retry,
            @DefaultValue("true") boolean ensembleTracker,
            String namespace,
            @DefaultValue("30s") Duration startupConnectTimeout,
            @DefaultValue("false") boolean startDisconnected) {

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
        public Zookeeper {
            if (connectString != null && connectString.isBlank()) {
                connectString = null;
            }
            between(
                    sessionTimeout,
                    Duration.ofSeconds(1),
                    Duration.ofMinutes(10),
                    "leasehold.zookeeper.session-timeout");
            between(
                    connectionTimeout,
                    Duration.ofMillis(100),
                    Duration.ofMinutes(10),
                    "leasehold.zookeeper.connection-timeout");
            if (retry == null) {
                throw new IllegalArgumentException("leasehold.zookeeper.retry must not be null");
            }
            between(
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
        public Zookeeper withConnectString(String connectString) {
            return new Zookeeper(
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
        public Zookeeper withSessionTimeout(Duration sessionTimeout) {
            return withStartup(sessionTimeout, startupConnectTimeout, startDisconnected);
        }

        /**
         * A copy with other start-up values.
         *
         * @param startupConnectTimeout the longest wait for the first connection at start
         * @param startDisconnected     whether to start anyway when it did not connect in time
         * @return a copy with them
         */
        public Zookeeper withStartup(Duration startupConnectTimeout, boolean startDisconnected) {
            return withStartup(sessionTimeout, startupConnectTimeout, startDisconnected);
        }

        private Zookeeper withStartup(
                Duration sessionTimeout, Duration startupConnectTimeout, boolean startDisconnected) {
            return new Zookeeper(
                    connectString,
                    sessionTimeout,
                    connectionTimeout,
                    retry,
                    ensembleTracker,
                    namespace,
                    startupConnectTimeout,
                    startDisconnected);
        }
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
            between(baseSleep, Duration.ofMillis(1), Duration.ofMinutes(1), "leasehold.zookeeper.retry.base-sleep");
            if (maxRetries < 0 || maxRetries > 29) {
                throw new IllegalArgumentException(
                        "leasehold.zookeeper.retry.max-retries must be from 0 to 29, was " + maxRetries);
            }
            between(maxSleep, baseSleep, Duration.ofMinutes(10), "leasehold.zookeeper.retry.max-sleep");
        }
    }

    /**
     * Where the candidates' elections take place: one election per role, at {@code root + "/" + role}.
     *
     * @param root      an absolute ZooKeeper path, e.g. {@code /leasehold/election}
     * @param closeWait how long the context's close waits for a leader's {@code onRevoked}; from 1 ms to 1 h
     * @param progressDeadline unset (the default) or from 1 ms to 1 day: each initiator's leader must call {@link
     *                  FencedContext#progress()} at least this often, or it gives leadership up (cause {@code
     *                  STALLED}) so that another instance leads
     * @param participantId this instance's participant id, for each candidate that names no id of its own (see
     *                  {@link ParticipantIds}); unset (the default): {@code <host>-<pid>-<8 hex digits>}, made once
     *                  per application context, so two instances on one host (or two contexts in one JVM) differ;
     *                  set: non-blank, at most 200 characters, no blanks at either end, no control characters
     */
    public record Election(
            @DefaultValue("/leasehold/election") String root,
            @DefaultValue("10s") Duration closeWait,
            Duration progressDeadline,
            String participantId) {

        /**
         * Checks every value; a blank participant id counts as unset.
         *
         * @param root      the election root
         * @param closeWait the close wait
         * @param progressDeadline the progress deadline, or null for none
         * @param participantId this instance's participant id, or null for the default
         */
        public Election {
            if (participantId != null && participantId.isBlank()) {
                participantId = null;
            }
            if (participantId != null) {
                ParticipantIds.requireValid(participantId, "leasehold.election.participant-id");
            }
            try {
                ElectionPaths.requireRoot(root);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("leasehold.election.root: " + e.getMessage(), e);
            }
            between(closeWait, Duration.ofMillis(1), Duration.ofHours(1), "leasehold.election.close-wait");
            if (progressDeadline != null) {
                between(
                        progressDeadline,
                        Duration.ofMillis(1),
                        Duration.ofDays(1),
                        "leasehold.election.progress-deadline (leave it unset for none)");
            }
        }

        /**
         * A copy with another value.
         *
         * @param root the election root
         * @return a copy with it
         */
        public Election withRoot(String root) {
            return new Election(root, closeWait, progressDeadline, participantId);
        }

        /**
         * A copy with another value.
         *
         * @param progressDeadline the progress deadline, or null for none
         * @return a copy with it
         */
        public Election withProgressDeadline(Duration progressDeadline) {
            return new Election(root, closeWait, progressDeadline, participantId);
        }

        /**
         * A copy with another value.
         *
         * @param participantId this instance's participant id, or null for the default
         * @return a copy with it
         */
        public Election withParticipantId(String participantId) {
            return new Election(root, closeWait, progressDeadline, participantId);
        }
    }

    /**
     * The fenced store's beans ({@code FenceGate}, {@code BatchClaims}, {@code SlotRuns}).
     *
     * @param tablePrefix   prefixed to every table name, checked by the store: {@code [a-z][a-z0-9_]{0,29}}
     * @param installSchema whether to create or upgrade the store's tables at start ({@code FencedSchema.install});
     *                      turn it off when Flyway or Liquibase applies {@code FencedSchema.ddl}
     * @param batchMetersRefresh how often the starter refreshes the batch gauges ({@code leasehold.batches}), which it
     *                      registers only when a bean uses {@code BatchClaims}; from 1 s to 1 h
     */
    public record Store(
            @DefaultValue(StoreConfig.DEFAULT_PREFIX) String tablePrefix,
            @DefaultValue("true") boolean installSchema,
            @DefaultValue("30s") Duration batchMetersRefresh) {

        /**
         * Checks the prefix with the store's own rule, and the refresh period.
         *
         * @param tablePrefix        the table prefix
         * @param installSchema      whether to install the schema
         * @param batchMetersRefresh how often the starter refreshes the batch gauges; from 1 s to 1 h
         */
        public Store {
            between(
                    batchMetersRefresh,
                    Duration.ofSeconds(1),
                    Duration.ofHours(1),
                    "leasehold.store.batch-meters-refresh");
            try {
                StoreConfig.defaults().withTablePrefix(tablePrefix);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("leasehold.store.table-prefix: " + e.getMessage(), e);
            }
        }

        /**
         * The store's configuration.
         *
         * @return the default configuration with this table prefix
         */
        public StoreConfig toStoreConfig() {
            return StoreConfig.defaults().withTablePrefix(tablePrefix);
        }

        /**
         * A copy with another value.
         *
         * @param tablePrefix the table prefix
         * @return a copy with it
         */
        public Store withTablePrefix(String tablePrefix) {
            return new Store(tablePrefix, installSchema, batchMetersRefresh);
        }

        /**
         * A copy with another value.
         *
         * @param installSchema whether to install the schema
         * @return a copy with it
         */
        public Store withInstallSchema(boolean installSchema) {
            return new Store(tablePrefix, installSchema, batchMetersRefresh);
        }

        /**
         * A copy with another value.
         *
         * @param batchMetersRefresh how often the starter refreshes the batch gauges
         * @return a copy with it
         */
        public Store withBatchMetersRefresh(Duration batchMetersRefresh) {
            return new Store(tablePrefix, installSchema, batchMetersRefresh);
        }
    }

    private static void between(Duration value, Duration min, Duration max, String name) {
        if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException(name + " must be from " + min + " to " + max + ", was " + value);
        }
    }
}
