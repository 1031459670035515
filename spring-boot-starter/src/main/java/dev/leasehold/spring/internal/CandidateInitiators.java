package dev.leasehold.spring.internal;

import dev.leasehold.spring.LeaseholdElectionProperties;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.integration.leader.Candidate;

/**
 * What the ZooKeeper and the lease backends' registrars share: one initiator bean definition, named
 * {@code <candidate bean><suffix>}, for each {@link Candidate} bean that has none yet, depending on its candidate and
 * stopped on destruction; and the context's {@link ParticipantIds}, made when the first initiator is created.
 *
 * <p>Thread-safety: used by the application context's refresh thread.
 *
 * <p>Not API: public only so that the starter's other packages can share it.
 */
public final class CandidateInitiators {

    /** Creates one initiator when its bean is first asked for. */
    @FunctionalInterface
    public interface Factory<T> {
        /**
         * Creates the initiator of one candidate bean.
         *
         * @param beans         the bean factory
         * @param candidateName the candidate's bean name
         * @param name          the initiator's bean name
         * @param ids           the context's participant ids
         * @return the initiator
         */
        T create(ConfigurableListableBeanFactory beans, String candidateName, String name, ParticipantIds ids);
    }

    private CandidateInitiators() {}

    /**
     * Registers one initiator bean definition for each {@link Candidate} bean that has none yet.
     *
     * @param registry   the registry (a {@link ConfigurableListableBeanFactory}; anything else is left alone)
     * @param suffix     appended to the candidate's bean name to name its initiator
     * @param type       the initiators' type
     * @param properties the {@code leasehold.election.*} properties, asked for when the first initiator is created
     * @param factory    creates one initiator
     * @param <T>        the initiators' type
     */
    public static <T> void register(
            BeanDefinitionRegistry registry,
            String suffix,
            Class<T> type,
            Function<ConfigurableListableBeanFactory, LeaseholdElectionProperties> properties,
            Factory<T> factory) {
        if (!(registry instanceof ConfigurableListableBeanFactory beans)) {
            return;
        }
        AtomicReference<ParticipantIds> ids = new AtomicReference<>();
        for (String candidateName : beans.getBeanNamesForType(Candidate.class, true, false)) {
            String name = candidateName + suffix;
            if (registry.containsBeanDefinition(name)) {
                continue;
            }
            RootBeanDefinition definition = new RootBeanDefinition(type);
            definition.setInstanceSupplier(() -> factory.create(
                    beans,
                    candidateName,
                    name,
                    ids.updateAndGet(made -> made != null
                            ? made
                            : new ParticipantIds(properties.apply(beans).participantId()))));
            definition.setDependsOn(candidateName);
            definition.setDestroyMethodName("stop");
            registry.registerBeanDefinition(name, definition);
        }
    }
}
