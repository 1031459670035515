package dev.leasehold.spring;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.integration.leader.Candidate;

/**
 * What {@link InitiatorRegistrar} and {@link LeaseInitiatorRegistrar} share: one initiator bean definition, named
 * {@code <candidate bean><suffix>}, for each {@link Candidate} bean that has none yet, depending on its candidate and
 * stopped on destruction; and the context's {@link ParticipantIds}, made when the first initiator is created.
 *
 * <p>Thread-safety: used by the application context's refresh thread.
 */
final class CandidateInitiators {

    /** Creates one initiator when its bean is first asked for. */
    @FunctionalInterface
    interface Factory<T> {
        T create(ConfigurableListableBeanFactory beans, String candidateName, String name, ParticipantIds ids);
    }

    private CandidateInitiators() {}

    static <T> void register(
            BeanDefinitionRegistry registry,
            String suffix,
            Class<T> type,
            Function<ConfigurableListableBeanFactory, LeaseholdProperties> properties,
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
                            : new ParticipantIds(
                                    properties.apply(beans).election().participantId()))));
            definition.setDependsOn(candidateName);
            definition.setDestroyMethodName("stop");
            registry.registerBeanDefinition(name, definition);
        }
    }
}
