package dev.leasehold.spring.zookeeper;

import dev.leasehold.spring.LeaseholdConfigurationException;
import dev.leasehold.spring.LeaseholdElectionProperties;
import dev.leasehold.spring.internal.CandidateInitiators;
import dev.leasehold.spring.internal.ParticipantIds;
import java.util.Arrays;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.integration.leader.Candidate;

/**
 * Registers one {@link FencedLeaderInitiator} bean, named {@code <candidate bean>.fencedLeaderInitiator}, for each
 * {@link Candidate} bean. Each initiator depends on its candidate and on the Curator client, so it is destroyed before
 * them: the client closes last.
 *
 * <p>Thread-safety: used once, by the application context's refresh thread.
 */
public final class InitiatorRegistrar implements BeanDefinitionRegistryPostProcessor {

    /** The suffix of each initiator's bean name. */
    public static final String SUFFIX = ".fencedLeaderInitiator";

    /** Created by {@link LeaseholdZookeeperAutoConfiguration}. */
    public InitiatorRegistrar() {}

    @Override
    public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) throws BeansException {
        CandidateInitiators.register(
                registry,
                SUFFIX,
                FencedLeaderInitiator.class,
                InitiatorRegistrar::properties,
                InitiatorRegistrar::create);
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) throws BeansException {
        // all the work is done on the registry
    }

    private static LeaseholdElectionProperties properties(ConfigurableListableBeanFactory beans) {
        return beans.getBeanProvider(LeaseholdElectionProperties.class)
                .getIfAvailable(LeaseholdElectionProperties::defaults);
    }

    private static FencedLeaderInitiator create(
            ConfigurableListableBeanFactory beans, String candidateName, String name, ParticipantIds ids) {
        Candidate candidate = beans.getBean(candidateName, Candidate.class);
        LeaseholdElectionProperties election = properties(beans);
        CuratorFramework client;
        try {
            client = beans.getBean(CuratorFramework.class);
        } catch (NoSuchBeanDefinitionException e) {
            throw new LeaseholdConfigurationException(
                    "The Candidate bean '" + candidateName + "' (role '"
                            + candidate.getRole() + "') needs ZooKeeper, but there is no CuratorFramework bean and"
                            + " leasehold.zookeeper.connect-string is not set.",
                    "Set leasehold.zookeeper.connect-string (e.g. zk1:2181,zk2:2181,zk3:2181) or define a"
                            + " CuratorFramework bean, or set leasehold.election.backend=jdbc to elect on the"
                            + " database.",
                    e);
        }
        Arrays.stream(beans.getBeanNamesForType(CuratorFramework.class, true, false))
                .filter(clientName -> beans.getBean(clientName) == client)
                .forEach(clientName -> beans.registerDependentBean(clientName, name));
        try {
            FencedLeaderInitiator initiator = new FencedLeaderInitiator(
                    client, candidate, ids.assign(candidate, candidateName), election.root(), election.closeWait());
            if (election.progressDeadline() != null) {
                initiator.setProgressDeadline(election.progressDeadline());
            }
            return initiator;
        } catch (IllegalArgumentException e) {
            throw new LeaseholdConfigurationException(
                    "The Candidate bean '" + candidateName + "' cannot take part in" + " a fenced election: "
                            + e.getMessage(),
                    "Give the Candidate a non-blank role (one ZooKeeper node name) and, if it names an id, a unique"
                            + " non-blank one (a Candidate that names none takes leasehold.election.participant-id, or"
                            + " host, pid and a random part).",
                    e);
        }
    }
}
