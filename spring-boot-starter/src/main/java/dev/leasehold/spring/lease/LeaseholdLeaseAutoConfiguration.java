package dev.leasehold.spring.lease;

import dev.leasehold.spring.LeaseholdElectionProperties;
import dev.leasehold.spring.LeaseholdLeaseProperties;
import dev.leasehold.spring.store.LeaseholdStoreAutoConfiguration;
import dev.leasehold.store.lease.LeaseElection;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.leader.Candidate;

/**
 * Fenced leader election on the application's database, without ZooKeeper: with
 * {@code leasehold.election.backend=jdbc}, a {@link LeaseLeaderInitiator} for each {@link Candidate} bean, on the
 * context's {@code DataSource}, with the timing of {@code leasehold.election.lease.*}. The store's auto-configuration
 * installs the lease table (schema version 6) first, unless {@code leasehold.store.install-schema=false}.
 *
 * <p>Thread-safety: a configuration class; its beans say their own.
 */
@AutoConfiguration(after = LeaseholdStoreAutoConfiguration.class)
@ConditionalOnClass({LeaseElection.class, Candidate.class})
@ConditionalOnProperty(name = "leasehold.election.backend", havingValue = "jdbc")
@EnableConfigurationProperties({LeaseholdLeaseProperties.class, LeaseholdElectionProperties.class})
public final class LeaseholdLeaseAutoConfiguration {

    LeaseholdLeaseAutoConfiguration() {}

    /**
     * Registers a {@link LeaseLeaderInitiator} bean for each {@link Candidate} bean.
     *
     * @return the registrar (static: it runs before the other beans exist)
     */
    @Bean
    static LeaseInitiatorRegistrar leaseholdLeaseInitiatorRegistrar() {
        return new LeaseInitiatorRegistrar();
    }
}
