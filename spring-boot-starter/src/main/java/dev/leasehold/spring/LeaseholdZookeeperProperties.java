package dev.leasehold.spring;

import java.time.Duration;
import java.util.List;
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
 * @param auth              the client's authentication and its nodes' ACL ({@link Auth}); none by default
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
        @DefaultValue("false") boolean startDisconnected,
        @DefaultValue Auth auth) {

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
                false,
                Auth.NONE);
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
     * @param auth              the client's authentication and its nodes' ACL; {@code null}: none
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
        if (auth == null) {
            auth = Auth.NONE;
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
        return copy(connectString, sessionTimeout, startupConnectTimeout, startDisconnected, auth);
    }

    /**
     * A copy with another value.
     *
     * @param sessionTimeout the session timeout
     * @return a copy with it
     */
    public LeaseholdZookeeperProperties withSessionTimeout(Duration sessionTimeout) {
        return copy(connectString, sessionTimeout, startupConnectTimeout, startDisconnected, auth);
    }

    /**
     * A copy with other start-up values.
     *
     * @param startupConnectTimeout the longest wait for the first connection at start
     * @param startDisconnected     whether to start anyway when it did not connect in time
     * @return a copy with them
     */
    public LeaseholdZookeeperProperties withStartup(Duration startupConnectTimeout, boolean startDisconnected) {
        return copy(connectString, sessionTimeout, startupConnectTimeout, startDisconnected, auth);
    }

    /** The one copy every wither makes: the values a wither can change, the others as they are. */
    private LeaseholdZookeeperProperties copy(
            String connectString,
            Duration sessionTimeout,
            Duration startupConnectTimeout,
            boolean startDisconnected,
            Auth auth) {
        return new LeaseholdZookeeperProperties(
                connectString,
                sessionTimeout,
                connectionTimeout,
                retry,
                ensembleTracker,
                namespace,
                startupConnectTimeout,
                startDisconnected,
                auth);
    }

    /**
     * A copy with another value.
     *
     * @param auth the client's authentication and the ACL of the nodes it creates
     * @return a copy with it
     */
    public LeaseholdZookeeperProperties withAuth(Auth auth) {
        return copy(connectString, sessionTimeout, startupConnectTimeout, startDisconnected, auth);
    }

    /**
     * {@code leasehold.zookeeper.auth.*}: how the starter's Curator client authenticates, and the ACL of every node it
     * creates. Without it every node is {@code world:anyone cdrwa}: any client of the ensemble can create a node in
     * an election (and so stop it) or delete one. A {@code CuratorFramework} bean of the application is used as it
     * is: give it {@code authorization(...)} and an {@code aclProvider(...)} yourself.
     *
     * @param scheme ZooKeeper's authentication scheme, {@code digest} by default
     * @param auth   the credentials for the scheme ({@code user:password} for digest); unset: no authentication
     * @param acl    {@code creator-all} (every node the client creates may be read, written and deleted only by the
     *     identity that authenticated it) or {@code open} ({@code world:anyone}); by default {@code creator-all} when
     *     {@code auth} is set, else {@code open}
     */
    public record Auth(@DefaultValue("digest") String scheme, String auth, String acl) {
        /** The values {@code acl} takes. */
        public static final List<String> ACL_MODES = List.of("creator-all", "open");

        /** No authentication, open nodes. */
        public static final Auth NONE = new Auth("digest", null, null);

        /**
         * Checks the values; an unset acl follows auth.
         *
         * @param scheme the authentication scheme; blank: {@code digest}
         * @param auth   the credentials; blank: none
         * @param acl    {@code creator-all} or {@code open}; blank: {@code creator-all} with credentials, else
         *     {@code open}
         */
        public Auth {
            if (scheme == null || scheme.isBlank()) {
                scheme = "digest";
            }
            if (auth != null && auth.isBlank()) {
                auth = null;
            }
            if (scheme.equals("digest") && auth != null && !auth.contains(":")) {
                throw new IllegalArgumentException(
                        "leasehold.zookeeper.auth.auth must be user:password for the digest scheme");
            }
            if (acl == null || acl.isBlank()) {
                acl = auth == null ? "open" : "creator-all";
            }
            if (!ACL_MODES.contains(acl)) {
                throw new IllegalArgumentException(
                        "leasehold.zookeeper.auth.acl must be creator-all or open, was '" + acl + "'");
            }
            if (acl.equals("creator-all") && auth == null) {
                throw new IllegalArgumentException("leasehold.zookeeper.auth.acl=creator-all needs"
                        + " leasehold.zookeeper.auth.auth: a node created by an unauthenticated client has no creator"
                        + " to grant it to");
            }
        }

        /** @return whether nodes are created with ZooKeeper's {@code CREATOR_ALL_ACL} */
        public boolean creatorAll() {
            return acl.equals("creator-all");
        }

        /** @return the values, never the credentials (the record may be logged or shown) */
        @Override
        public String toString() {
            return "Auth[scheme=" + scheme + ", auth=" + (auth == null ? "none" : "***") + ", acl=" + acl + "]";
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
