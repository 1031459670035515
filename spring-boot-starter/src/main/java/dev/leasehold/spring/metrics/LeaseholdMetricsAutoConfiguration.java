package dev.leasehold.spring.metrics;

import dev.leasehold.micrometer.BatchMeters;
import dev.leasehold.micrometer.ElectionMeters;
import dev.leasehold.micrometer.StoreMeters;
import dev.leasehold.spring.LeaseholdStoreProperties;
import dev.leasehold.spring.store.LeaseholdStoreAutoConfiguration;
import dev.leasehold.spring.zookeeper.FencedLeaderInitiator;
import dev.leasehold.spring.zookeeper.LeaseholdZookeeperAutoConfiguration;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.claims.BatchClaims;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;

/**
 * Micrometer meters from {@code leasehold-micrometer}, when it and a {@link MeterRegistry} bean are present:
 * <ul>
 *   <li>{@link ElectionMeters} for each {@link FencedLeaderInitiator} ({@code leasehold.leader},
 *       {@code leasehold.leadership.*}), in a {@link LeaseholdElectionMeters};</li>
 *   <li>{@link StoreMeters} ({@code leasehold.fence.writes}, {@code leasehold.claims}, {@code leasehold.slots}) as a
 *       {@code StoreListener} bean, which the starter's {@link StoreConfig} bean tells (when the store is
 *       configured);</li>
 *   <li>{@link BatchMeters} ({@code leasehold.batches}, {@code leasehold.batches.oldest.pending}) in a
 *       {@link LeaseholdBatchMeters}, only if a bean uses the {@link BatchClaims} bean (an election-only application
 *       gets none), refreshed by the starter every {@code leasehold.store.batch-meters-refresh}.</li>
 * </ul>
 *
 * <p>Thread-safety: a configuration class; its beans are thread-safe.
 */
@AutoConfiguration(
        after = {LeaseholdZookeeperAutoConfiguration.class, LeaseholdStoreAutoConfiguration.class},
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"
        })
@ConditionalOnClass({MeterRegistry.class, ElectionMeters.class})
@ConditionalOnBean(MeterRegistry.class)
@EnableConfigurationProperties(LeaseholdStoreProperties.class)
public final class LeaseholdMetricsAutoConfiguration {

    LeaseholdMetricsAutoConfiguration() {}

    /**
     * The ZooKeeper initiators' meters, when Curator is on the class path (it is optional: an application on the
     * database lease has none). Thread-safety: a configuration class.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.apache.curator.framework.CuratorFramework")
    static final class ElectionConfiguration {

        ElectionConfiguration() {}

        /**
         * The election meters of every initiator. Never lazy: it must add its listeners before the initiators start.
         *
         * @param registry   the application's registry
         * @param initiators the initiators, one per Candidate bean (and any of your own)
         * @return the meters, removed from the registry when the context closes
         */
        @Bean
        @Lazy(false)
        @ConditionalOnMissingBean
        LeaseholdElectionMeters leaseholdElectionMeters(
                MeterRegistry registry, ObjectProvider<FencedLeaderInitiator> initiators) {
            return new LeaseholdElectionMeters(
                    registry, initiators.orderedStream().toList());
        }
    }

    /**
     * The store's counters, as a {@code StoreListener} bean that the starter's {@code StoreConfig} bean tells.
     *
     * @param registry the application's registry
     * @return the counters
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(StoreConfig.class)
    StoreMeters leaseholdStoreMeters(MeterRegistry registry) {
        return new StoreMeters(registry);
    }

    /**
     * The batch queue's gauges, registered only if a bean uses the {@link BatchClaims} bean and refreshed by the
     * starter every {@code leasehold.store.batch-meters-refresh}.
     *
     * @param registry   the application's registry
     * @param claims     the batch claims
     * @param beans      the bean factory, which records who uses the batch claims
     * @param properties the {@code leasehold.store.*} properties
     * @return the gauges, removed from the registry when the context closes
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(BatchClaims.class)
    LeaseholdBatchMeters leaseholdBatchMeters(
            MeterRegistry registry,
            ObjectProvider<BatchClaims> claims,
            ConfigurableListableBeanFactory beans,
            LeaseholdStoreProperties properties) {
        return new LeaseholdBatchMeters(registry, claims, beans, properties.batchMetersRefresh());
    }
}
