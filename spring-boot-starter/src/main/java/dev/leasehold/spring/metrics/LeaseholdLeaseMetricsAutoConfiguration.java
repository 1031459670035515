package dev.leasehold.spring.metrics;

import dev.leasehold.micrometer.LeaseMeters;
import dev.leasehold.spring.lease.LeaseLeaderInitiator;
import dev.leasehold.spring.lease.LeaseholdLeaseAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Lazy;

/**
 * With {@code leasehold.election.backend=jdbc}, {@code leasehold-micrometer} and a {@link MeterRegistry} bean: the
 * recipes' election meters ({@code leasehold.leader}, {@code leasehold.leadership.*}) for each
 * {@link LeaseLeaderInitiator}, in a {@link LeaseholdLeaseMeters}.
 *
 * <p>Thread-safety: a configuration class; its beans are thread-safe.
 */
@AutoConfiguration(
        after = {LeaseholdLeaseAutoConfiguration.class, LeaseholdMetricsAutoConfiguration.class},
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"
        })
@ConditionalOnClass({MeterRegistry.class, LeaseMeters.class})
@ConditionalOnBean(MeterRegistry.class)
public final class LeaseholdLeaseMetricsAutoConfiguration {

    LeaseholdLeaseMetricsAutoConfiguration() {}

    /**
     * The election meters of every lease initiator. Never lazy: it must add its listeners before the initiators
     * start.
     *
     * @param registry   the application's registry
     * @param initiators the lease initiators, one per Candidate bean (none unless the backend is jdbc)
     * @return the meters, removed from the registry when the context closes
     */
    @Bean
    @Lazy(false)
    @ConditionalOnMissingBean
    LeaseholdLeaseMeters leaseholdLeaseMeters(MeterRegistry registry, ObjectProvider<LeaseLeaderInitiator> initiators) {
        return new LeaseholdLeaseMeters(registry, initiators.orderedStream().toList());
    }
}
