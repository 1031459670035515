package dev.leasehold.spring;

import java.time.Duration;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Actuator support, each part only when its Actuator module is on the class path: the {@code leasehold} health
 * indicator ({@code spring-boot-health}) and the {@code leasehold} info contributor ({@code spring-boot-actuator}).
 *
 * <p>Thread-safety: a configuration class; its beans are thread-safe.
 */
@AutoConfiguration(after = LeaseholdAutoConfiguration.class)
@ConditionalOnClass(CuratorFramework.class)
public class LeaseholdActuatorAutoConfiguration {

    /** Created by Spring Boot. */
    public LeaseholdActuatorAutoConfiguration() {}

    /** The health indicator, named {@code leasehold}. Thread-safety: a configuration class. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    public static class HealthConfiguration {

        /** Created by Spring. */
        public HealthConfiguration() {}

        /**
         * The {@code leasehold} health indicator.
         *
         * @param client     the Curator client, if any
         * @param initiators the initiators, one per Candidate bean
         * @param properties the {@code leasehold.*} properties, if bound
         * @param beans      the bean factory, to tell whether the starter made the client
         * @return the indicator
         */
        @Bean
        @ConditionalOnMissingBean(name = "leaseholdHealthIndicator")
        public LeaseholdHealthIndicator leaseholdHealthIndicator(
                ObjectProvider<CuratorFramework> client,
                ObjectProvider<FencedLeaderInitiator> initiators,
                ObjectProvider<LeaseholdProperties> properties,
                BeanFactory beans) {
            return new LeaseholdHealthIndicator(
                    client.getIfUnique(), initiatorList(initiators), askedSessionTimeout(properties, beans));
        }
    }

    /** The info contributor. Thread-safety: a configuration class. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(InfoContributor.class)
    public static class InfoConfiguration {

        /** Created by Spring. */
        public InfoConfiguration() {}

        /**
         * The {@code leasehold} info contributor.
         *
         * @param client     the Curator client, if any
         * @param initiators the initiators, one per Candidate bean
         * @param properties the {@code leasehold.*} properties, if bound
         * @param beans      the bean factory, to tell whether the starter made the client
         * @return the contributor
         */
        @Bean
        @ConditionalOnMissingBean(name = "leaseholdInfoContributor")
        public LeaseholdInfoContributor leaseholdInfoContributor(
                ObjectProvider<CuratorFramework> client,
                ObjectProvider<FencedLeaderInitiator> initiators,
                ObjectProvider<LeaseholdProperties> properties,
                BeanFactory beans) {
            return new LeaseholdInfoContributor(
                    client.getIfUnique(), initiatorList(initiators), askedSessionTimeout(properties, beans));
        }
    }

    /** The session timeout the starter's own client asked for; {@code null} for a client the application made. */
    private static Duration askedSessionTimeout(ObjectProvider<LeaseholdProperties> properties, BeanFactory beans) {
        LeaseholdProperties bound = properties.getIfAvailable();
        return bound != null && beans.containsBean("leaseholdCuratorFramework")
                ? bound.zookeeper().sessionTimeout()
                : null;
    }

    private static List<FencedLeaderInitiator> initiatorList(ObjectProvider<FencedLeaderInitiator> initiators) {
        return initiators.orderedStream().toList();
    }
}
