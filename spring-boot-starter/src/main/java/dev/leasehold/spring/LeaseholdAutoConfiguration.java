package dev.leasehold.spring;

import dev.leasehold.recipes.FencedLeaderSelector;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
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
@EnableConfigurationProperties(LeaseholdProperties.class)
public class LeaseholdAutoConfiguration {

    /** Created by Spring Boot. */
    public LeaseholdAutoConfiguration() {}

    /**
     * The Curator client, started when created and closed when the context closes, after the initiators stopped.
     *
     * @param properties the {@code leasehold.*} properties
     * @return a started client
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(CuratorFramework.class)
    @ConditionalOnProperty("leasehold.zookeeper.connect-string")
    public CuratorFramework leaseholdCuratorFramework(LeaseholdProperties properties) {
        LeaseholdProperties.Zookeeper zk = properties.zookeeper();
        if (zk.connectString() == null) {
            throw new LeaseholdConfigurationException(
                    "leasehold.zookeeper.connect-string is blank",
                    "Set leasehold.zookeeper.connect-string to the ensemble (host:port,host:port), or remove it and"
                            + " define a CuratorFramework bean.",
                    null);
        }
        LeaseholdProperties.Retry retry = zk.retry();
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
        CuratorFramework client = builder.build();
        client.start(); // connects in the background; the initiators' selectors wait for the connection
        return client;
    }

    /**
     * Registers a {@link FencedLeaderInitiator} bean for each {@link Candidate} bean, unless
     * {@code leasehold.election.backend=jdbc} (then {@link LeaseholdLeaseAutoConfiguration} elects on the database).
     *
     * @return the registrar (static: it runs before the other beans exist)
     */
    @Bean
    @ConditionalOnProperty(name = "leasehold.election.backend", havingValue = "zookeeper", matchIfMissing = true)
    public static InitiatorRegistrar leaseholdInitiatorRegistrar() {
        return new InitiatorRegistrar();
    }
}
