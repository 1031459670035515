package dev.leasehold.spring.actuate;

import dev.leasehold.spring.LeaseholdZookeeperProperties;
import dev.leasehold.spring.lease.LeaseLeaderInitiator;
import dev.leasehold.spring.lease.LeaseholdLeaseAutoConfiguration;
import dev.leasehold.spring.zookeeper.FencedLeaderInitiator;
import dev.leasehold.spring.zookeeper.LeaseholdZookeeperAutoConfiguration;
import java.time.Duration;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Actuator support for the backend in use, each part only when its Actuator module is on the class path: the
 * {@code leasehold} health indicator ({@code spring-boot-health}; off with {@code
 * management.health.leasehold.enabled=false}, as Spring Boot's own indicators) and the {@code leasehold} info
 * contributor ({@code spring-boot-actuator}). On ZooKeeper (the default backend, with Curator on the class path) they
 * follow the client's connection; with {@code leasehold.election.backend=jdbc}, the database's answers.
 *
 * <p>Thread-safety: a configuration class; its beans are thread-safe.
 */
@AutoConfiguration(after = {LeaseholdZookeeperAutoConfiguration.class, LeaseholdLeaseAutoConfiguration.class})
public final class LeaseholdActuatorAutoConfiguration {

    private static final String BACKEND = "leasehold.election.backend";

    LeaseholdActuatorAutoConfiguration() {}

    /** The health indicator on ZooKeeper, named {@code leasehold}. Thread-safety: a configuration class. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({HealthIndicator.class, CuratorFramework.class})
    @ConditionalOnEnabledHealthIndicator("leasehold")
    @ConditionalOnProperty(name = BACKEND, havingValue = "zookeeper", matchIfMissing = true)
    static final class HealthConfiguration {

        HealthConfiguration() {}

        /**
         * The {@code leasehold} health indicator.
         *
         * @param client     the Curator client, if any
         * @param initiators the initiators, one per Candidate bean
         * @param properties the {@code leasehold.zookeeper.*} properties, if bound
         * @param beans      the bean factory, to tell whether the starter made the client
         * @return the indicator
         */
        @Bean
        @ConditionalOnMissingBean(name = "leaseholdHealthIndicator")
        LeaseholdHealthIndicator leaseholdHealthIndicator(
                ObjectProvider<CuratorFramework> client,
                ObjectProvider<FencedLeaderInitiator> initiators,
                ObjectProvider<LeaseholdZookeeperProperties> properties,
                BeanFactory beans) {
            return new LeaseholdHealthIndicator(
                    client.getIfUnique(), initiators.orderedStream().toList(), askedSessionTimeout(properties, beans));
        }
    }

    /** The info contributor on ZooKeeper. Thread-safety: a configuration class. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({InfoContributor.class, CuratorFramework.class})
    @ConditionalOnProperty(name = BACKEND, havingValue = "zookeeper", matchIfMissing = true)
    static final class InfoConfiguration {

        InfoConfiguration() {}

        /**
         * The {@code leasehold} info contributor.
         *
         * @param client     the Curator client, if any
         * @param initiators the initiators, one per Candidate bean
         * @param properties the {@code leasehold.zookeeper.*} properties, if bound
         * @param beans      the bean factory, to tell whether the starter made the client
         * @return the contributor
         */
        @Bean
        @ConditionalOnMissingBean(name = "leaseholdInfoContributor")
        LeaseholdInfoContributor leaseholdInfoContributor(
                ObjectProvider<CuratorFramework> client,
                ObjectProvider<FencedLeaderInitiator> initiators,
                ObjectProvider<LeaseholdZookeeperProperties> properties,
                BeanFactory beans) {
            return new LeaseholdInfoContributor(
                    client.getIfUnique(), initiators.orderedStream().toList(), askedSessionTimeout(properties, beans));
        }
    }

    /** The health indicator on the database lease, named {@code leasehold}. Thread-safety: a configuration class. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("leasehold")
    @ConditionalOnProperty(name = BACKEND, havingValue = "jdbc")
    static final class LeaseHealthConfiguration {

        LeaseHealthConfiguration() {}

        /**
         * The {@code leasehold} health indicator of the database lease backend.
         *
         * @param initiators the lease initiators, one per Candidate bean
         * @param dataSource the application's data source, if there is one
         * @return the indicator
         */
        @Bean
        @ConditionalOnMissingBean(name = "leaseholdHealthIndicator")
        LeaseholdLeaseHealthIndicator leaseholdHealthIndicator(
                ObjectProvider<LeaseLeaderInitiator> initiators, ObjectProvider<DataSource> dataSource) {
            return new LeaseholdLeaseHealthIndicator(initiators.orderedStream().toList(), dataSource.getIfUnique());
        }
    }

    /** The info contributor on the database lease. Thread-safety: a configuration class. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(InfoContributor.class)
    @ConditionalOnProperty(name = BACKEND, havingValue = "jdbc")
    static final class LeaseInfoConfiguration {

        LeaseInfoConfiguration() {}

        /**
         * The {@code leasehold} info contributor of the database lease backend.
         *
         * @param initiators the lease initiators, one per Candidate bean
         * @param dataSource the application's data source, if there is one
         * @return the contributor
         */
        @Bean
        @ConditionalOnMissingBean(name = "leaseholdInfoContributor")
        LeaseholdLeaseInfoContributor leaseholdInfoContributor(
                ObjectProvider<LeaseLeaderInitiator> initiators, ObjectProvider<DataSource> dataSource) {
            return new LeaseholdLeaseInfoContributor(initiators.orderedStream().toList(), dataSource.getIfUnique());
        }
    }

    /** The session timeout the starter's own client asked for; {@code null} for a client the application made. */
    private static Duration askedSessionTimeout(
            ObjectProvider<LeaseholdZookeeperProperties> properties, BeanFactory beans) {
        LeaseholdZookeeperProperties bound = properties.getIfAvailable();
        return bound != null && beans.containsBean("leaseholdCuratorFramework") ? bound.sessionTimeout() : null;
    }
}
