package dev.leasehold.spring.lease;

import dev.leasehold.spring.LeaseholdElectionProperties;
import dev.leasehold.spring.LeaseholdLeaseProperties;
import dev.leasehold.spring.store.LeaseholdStoreAutoConfiguration;
import dev.leasehold.store.lease.LeaseElection;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.Candidate;

/**
 * The choice of election backend, and fenced leader election on the application's database without ZooKeeper.
 * {@code leasehold.election.backend} is bound and checked always ({@code zookeeper} or {@code jdbc}: any other value,
 * empty included, fails the start naming it); with {@code jdbc}, a {@link LeaseLeaderInitiator} for each
 * {@link Candidate} bean, on the context's {@code DataSource}, with the timing of {@code leasehold.election.lease.*}.
 * The store's auto-configuration installs the lease table (schema version 6) first, unless
 * {@code leasehold.store.install-schema=false}. With {@code zookeeper} (the default) but no Curator on the class path,
 * a {@code Candidate} bean fails the start, naming the dependencies and the {@code jdbc} backend.
 *
 * <p>Thread-safety: a configuration class; its beans say their own.
 */
@AutoConfiguration(after = LeaseholdStoreAutoConfiguration.class)
@ConditionalOnClass({LeaseElection.class, Candidate.class})
@EnableConfigurationProperties({LeaseholdLeaseProperties.class, LeaseholdElectionProperties.class})
public final class LeaseholdLeaseAutoConfiguration {

    LeaseholdLeaseAutoConfiguration() {}

    /**
     * Registers a {@link LeaseLeaderInitiator} bean for each {@link Candidate} bean, with
     * {@code leasehold.election.backend=jdbc}.
     *
     * @return the registrar (static: it runs before the other beans exist)
     */
    @Bean
    @ConditionalOnProperty(name = "leasehold.election.backend", havingValue = "jdbc")
    static LeaseInitiatorRegistrar leaseholdLeaseInitiatorRegistrar() {
        return new LeaseInitiatorRegistrar();
    }

    /**
     * The ZooKeeper backend chosen (the default) without Curator on the class path. Thread-safety: a configuration
     * class.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("org.apache.curator.framework.CuratorFramework")
    @ConditionalOnProperty(name = "leasehold.election.backend", havingValue = "zookeeper", matchIfMissing = true)
    static final class WithoutCurator {

        WithoutCurator() {}

        /**
         * Fails the start if there is a {@link Candidate} bean: it would never be elected.
         *
         * @return the check (static: it runs before the other beans exist)
         */
        @Bean
        static NoZookeeperCheck leaseholdNoZookeeperCheck() {
            return new NoZookeeperCheck();
        }
    }
}
