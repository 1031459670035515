package dev.leasehold.spring.lease;

import dev.leasehold.spring.LeaseholdConfigurationException;
import dev.leasehold.spring.LeaseholdElectionProperties;
import dev.leasehold.spring.LeaseholdLeaseProperties;
import dev.leasehold.spring.internal.CandidateInitiators;
import dev.leasehold.spring.internal.ParticipantIds;
import dev.leasehold.store.StoreConfig;
import javax.sql.DataSource;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.integration.leader.Candidate;

/**
 * With {@code leasehold.election.backend=jdbc}: registers one {@link LeaseLeaderInitiator} bean, named
 * {@code <candidate bean>.leaseLeaderInitiator}, for each {@link Candidate} bean, on the context's {@link DataSource}
 * and the store's {@link StoreConfig}. Each initiator depends on its candidate and on the store's schema, so the lease
 * table exists before it starts, and it is destroyed before them.
 *
 * <p>Thread-safety: used once, by the application context's refresh thread.
 */
public final class LeaseInitiatorRegistrar implements BeanDefinitionRegistryPostProcessor, EnvironmentAware {

    /** The suffix of each initiator's bean name. */
    public static final String SUFFIX = ".leaseLeaderInitiator";

    /** The store's auto-configuration's bean that installs the schema (its type is not public). */
    private static final String STORE_SCHEMA = "leaseholdStoreSchema";

    private Environment environment;

    /** Created by {@link LeaseholdLeaseAutoConfiguration}. */
    public LeaseInitiatorRegistrar() {}

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) throws BeansException {
        CandidateInitiators.register(
                registry,
                SUFFIX,
                LeaseLeaderInitiator.class,
                this::properties,
                (beans, candidateName, name, ids) -> create(beans, candidateName, ids));
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) throws BeansException {
        // all the work is done on the registry
    }

    private LeaseholdElectionProperties properties(ConfigurableListableBeanFactory beans) {
        return beans.getBeanProvider(LeaseholdElectionProperties.class).getIfAvailable(() -> Binder.get(environment)
                .bindOrCreate("leasehold.election", LeaseholdElectionProperties.class));
    }

    private LeaseLeaderInitiator create(
            ConfigurableListableBeanFactory beans, String candidateName, ParticipantIds ids) {
        Candidate candidate = beans.getBean(candidateName, Candidate.class);
        LeaseholdLeaseProperties properties =
                Binder.get(environment).bindOrCreate("leasehold.election", LeaseholdLeaseProperties.class);
        DataSource dataSource;
        try {
            dataSource = beans.getBean(DataSource.class);
        } catch (NoSuchBeanDefinitionException e) {
            throw new LeaseholdConfigurationException(
                    "The Candidate bean '" + candidateName + "' (role '" + candidate.getRole() + "') is to be elected"
                            + " on the database (leasehold.election.backend=jdbc), but there is no single DataSource"
                            + " bean.",
                    "Define one DataSource (or spring.datasource.*), or set leasehold.election.backend=zookeeper.",
                    e);
        }
        if (beans.containsBean(STORE_SCHEMA)) {
            beans.getBean(STORE_SCHEMA); // the table first
        }
        StoreConfig config = beans.getBeanProvider(StoreConfig.class).getIfAvailable(StoreConfig::defaults);
        try {
            LeaseLeaderInitiator initiator = new LeaseLeaderInitiator(
                    dataSource,
                    candidate,
                    ids.assign(candidate, candidateName),
                    properties.lease().toTiming(),
                    config);
            // leasehold.election.progress-deadline, as for the ZooKeeper initiators
            LeaseholdElectionProperties election = properties(beans);
            if (election.progressDeadline() != null) {
                initiator.setProgressDeadline(election.progressDeadline());
            }
            return initiator;
        } catch (IllegalArgumentException e) {
            throw new LeaseholdConfigurationException(
                    "The Candidate bean '" + candidateName + "' cannot take part in a lease election: "
                            + e.getMessage(),
                    "Give the Candidate a non-blank role (the lease's name) and, if it names an id, a unique"
                            + " non-blank one, each at most 200 characters without blanks at either end (a Candidate"
                            + " that names none takes leasehold.election.participant-id, or host, pid and a random"
                            + " part).",
                    e);
        }
    }
}
