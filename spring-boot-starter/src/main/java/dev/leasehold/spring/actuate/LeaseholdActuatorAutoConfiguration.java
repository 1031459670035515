package dev.leasehold.spring.actuate;

import dev.leasehold.spring.LeaseholdZookeeperProperties;
import dev.leasehold.spring.zookeeper.FencedLeaderInitiator;
import dev.leasehold.spring.zookeeper.LeaseholdZookeeperAutoConfiguration;
import java.time.Duration;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Actuator support, each part only when its Actuator module is on the class path: the {@code leasehold} health
 * indicator ({@code spring-boot-health}; off with {@code management.health.leasehold.enabled=false}, as Spring Boot's
 * own indicators) and the {@code leasehold} info contributor ({@code spring-boot-actuator}).
 *
 * <p>Thread-safety: a configuration class; its beans are thread-safe.
 */
@AutoConfiguration(after = LeaseholdZookeeperAutoConfiguration.class)
@ConditionalOnClass(CuratorFramework.class)
public final class LeaseholdActuatorAutoConfiguration {

    LeaseholdActuatorAutoConfiguration() {}

    /** The health indicator, named {@code leasehold}. Thread-safety: a configuration class. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("leasehold")
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
                    client.getIfUnique(), initiatorList(initiators), askedSessionTimeout(properties, beans));
        }
    }

    /** The info contributor. Thread-safety: a configuration class. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(InfoContributor.class)
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
                    client.getIfUnique(), initiatorList(initiators), askedSessionTimeout(properties, beans));
        }
    }

    /** The session timeout the starter's own client asked for; {@code null} for a client the application made. */
    private static Duration askedSessionTimeout(
            ObjectProvider<LeaseholdZookeeperProperties> properties, BeanFactory beans) {
        LeaseholdZookeeperProperties bound = properties.getIfAvailable();
        return bound != null && beans.containsBean("leaseholdCuratorFramework") ? bound.sessionTimeout() : null;
    }

    private static List<FencedLeaderInitiator> initiatorList(ObjectProvider<FencedLeaderInitiator> initiators) {
        return initiators.orderedStream().toList();
    }
}
