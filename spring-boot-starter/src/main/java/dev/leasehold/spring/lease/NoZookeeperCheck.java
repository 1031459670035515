package dev.leasehold.spring.lease;

import dev.leasehold.spring.LeaseholdConfigurationException;
import java.util.Arrays;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.integration.leader.Candidate;

/**
 * With {@code leasehold.election.backend=zookeeper} (the default) and no Curator on the class path: fails the start if
 * there is a {@link Candidate} bean, which would otherwise never be elected, naming the two ways out.
 *
 * <p>Thread-safety: used once, by the application context's refresh thread.
 */
public final class NoZookeeperCheck implements BeanDefinitionRegistryPostProcessor {

    /** Created by {@link LeaseholdLeaseAutoConfiguration}. */
    public NoZookeeperCheck() {}

    @Override
    public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) throws BeansException {
        // the bean factory's types are known in postProcessBeanFactory
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beans) throws BeansException {
        String[] candidates = beans.getBeanNamesForType(Candidate.class, true, false);
        if (candidates.length > 0) {
            throw new LeaseholdConfigurationException(
                    "The Candidate bean(s) " + Arrays.toString(candidates) + " are to be elected on ZooKeeper"
                            + " (leasehold.election.backend=zookeeper, the default), but Curator is not on the class"
                            + " path.",
                    "Add org.apache.curator:curator-recipes (it brings curator-framework and ZooKeeper's client; see"
                            + " docs/spring-boot.md) and set leasehold.zookeeper.connect-string, or set"
                            + " leasehold.election.backend=jdbc to elect on the database.",
                    null);
        }
    }
}
