package dev.leasehold.spring.zookeeper;

import dev.leasehold.recipes.FencedLeaderSelector;
import dev.leasehold.spring.LeaseholdConfigurationException;
import dev.leasehold.spring.LeaseholdElectionProperties;
import dev.leasehold.spring.LeaseholdZookeeperProperties;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.leader.Candidate;

/**
 * Fenced leader election for Spring: a Curator client from {@code leasehold.zookeeper.*} when the application defines
 * none, and a {@link FencedLeaderInitiator} for each {@link Candidate} bean, on {@code leasehold.election.root + "/" +
 * role}.
 *
 * <p>Shutdown order: the initiators stop first (the leader's {@code onRevoked} returns, then the node is deleted), and
 * the client this configuration created is closed last, when the beans are destroyed.
 *
 * <p>Thread-safety: a configuration class; its beans say their own.
 */
@AutoConfiguration
@ConditionalOnClass({FencedLeaderSelector.class, Candidate.class, CuratorFramework.class})
@EnableConfigurationProperties({LeaseholdZookeeperProperties.class, LeaseholdElectionProperties.class})
public final class LeaseholdZookeeperAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(LeaseholdZookeeperAutoConfiguration.class);

    LeaseholdZookeeperAutoConfiguration() {}

    /**
     * The Curator client, started when created and closed when the context closes, after the initiators stopped.
     *
     * @param zk the {@code leasehold.zookeeper.*} properties
     * @return a started client
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(CuratorFramework.class)
    @ConditionalOnProperty("leasehold.zookeeper.connect-string")
    CuratorFramework leaseholdCuratorFramework(LeaseholdZookeeperProperties zk) {
        if (zk.connectString() == null) {
            throw new LeaseholdConfigurationException(
                    "leasehold.zookeeper.connect-string is blank",
                    "Set leasehold.zookeeper.connect-string to the ensemble (host:port,host:port), or remove it and"
                            + " define a CuratorFramework bean.",
                    null);
        }
        LeaseholdZookeeperProperties.Retry retry = zk.retry();
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(zk.connectString())
                .sessionTimeoutMs(Math.toIntExact(zk.sessionTimeout().toMillis()))
                .connectionTimeoutMs(Math.toIntExact(zk.connectionTimeout().toMillis()))
                .retryPolicy(new ExponentialBackoffRetry(
                        Math.toIntExact(retry.baseSleep().toMillis()),
                        retry.maxRetries(),
                        Math.toIntExact(retry.maxSleep().toMillis())))
                .ensembleTracker(zk.ensembleTracker());
        if (zk.namespace() != null) {
            builder.namespace(zk.namespace());
        }
        LeaseholdZookeeperProperties.Auth auth = zk.auth();
        if (auth.auth() != null) {
            builder.authorization(auth.scheme(), auth.auth().getBytes(StandardCharsets.UTF_8));
        }
        if (auth.creatorAll()) {
            builder.aclProvider(new CreatorAllAcl());
        }
        CuratorFramework client = builder.build();
        client.start();
        awaitFirstConnection(client, zk);
        return client;
    }

    /**
     * Waits, bounded by {@code leasehold.zookeeper.startup-connect-timeout}, for the client's first connection, so a
     * wrong address fails the start with one message instead of an application that runs without ZooKeeper. With
     * {@code start-disconnected} the start goes on (readiness refuses traffic until the client connects).
     */
    private static void awaitFirstConnection(CuratorFramework client, LeaseholdZookeeperProperties zk) {
        boolean connected;
        try {
            connected = client.blockUntilConnected(
                    Math.toIntExact(zk.startupConnectTimeout().toMillis()), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            client.close();
            throw new IllegalStateException("interrupted while waiting for ZooKeeper at " + zk.connectString(), e);
        }
        if (connected) {
            log.info(
                    "ZooKeeper at {}: session timeout {}",
                    zk.connectString(),
                    ZookeeperSession.describe(client, zk.sessionTimeout()));
            return;
        }
        if (zk.startDisconnected()) {
            log.warn(
                    "ZooKeeper at {} did not answer within {} ms; starting anyway (leasehold.zookeeper.start-disconnected"
                            + "=true): no participant leads from here and readiness refuses traffic until it connects",
                    zk.connectString(),
                    zk.startupConnectTimeout().toMillis());
            return;
        }
        client.close();
        throw new LeaseholdConfigurationException(
                "Could not connect to ZooKeeper at " + zk.connectString() + " within "
                        + zk.startupConnectTimeout().toMillis() + " ms (leasehold.zookeeper.startup-connect-timeout).",
                "Check leasehold.zookeeper.connect-string (host:port,host:port) and that this host can reach those"
                        + " servers; allow longer with leasehold.zookeeper.startup-connect-timeout, or set"
                        + " leasehold.zookeeper.start-disconnected=true to start without ZooKeeper (readiness then"
                        + " refuses traffic until it connects).",
                null);
    }

    /**
     * Feeds the application's readiness from the Curator client's connection: REFUSING_TRAFFIC while it is not
     * connected (SUSPENDED, LOST, or never connected), ACCEPTING_TRAFFIC once it is. Off with {@code
     * leasehold.zookeeper.readiness=false}.
     *
     * @param clients      the Curator client, if there is one (the starter's or the application's)
     * @param availability Spring Boot's availability bean, if there is one
     * @return the bean that follows the connection
     */
    @Bean
    @ConditionalOnProperty(name = "leasehold.zookeeper.readiness", matchIfMissing = true)
    ZookeeperReadiness leaseholdZookeeperReadiness(
            ObjectProvider<CuratorFramework> clients, ObjectProvider<ApplicationAvailability> availability) {
        return new ZookeeperReadiness(clients, availability);
    }

    /**
     * Registers a {@link FencedLeaderInitiator} bean for each {@link Candidate} bean, unless
     * {@code leasehold.election.backend=jdbc} (then the lease backend's auto-configuration elects on the database).
     *
     * @return the registrar (static: it runs before the other beans exist)
     */
    @Bean
    @ConditionalOnProperty(name = "leasehold.election.backend", havingValue = "zookeeper", matchIfMissing = true)
    static InitiatorRegistrar leaseholdInitiatorRegistrar() {
        return new InitiatorRegistrar();
    }
}
