package dev.leasehold.spring.fence;

import dev.leasehold.spring.Fenced;
import dev.leasehold.spring.LeaseholdConfigurationException;
import dev.leasehold.spring.LeaseholdFence;
import dev.leasehold.spring.lease.LeaseholdLeaseAutoConfiguration;
import dev.leasehold.spring.store.LeaseholdStoreAutoConfiguration;
import dev.leasehold.spring.zookeeper.LeaseholdZookeeperAutoConfiguration;
import dev.leasehold.store.FenceGate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The fence inside Spring transactions, when the context has a {@link FenceGate} and Spring JDBC is on the class
 * path: the {@link LeaseholdFence} bean and the post-processor that adds {@link Fenced}'s advice.
 *
 * <p>Thread-safety: a configuration class; its beans are thread-safe.
 */
@AutoConfiguration(
        after = {
            LeaseholdStoreAutoConfiguration.class,
            LeaseholdZookeeperAutoConfiguration.class,
            LeaseholdLeaseAutoConfiguration.class
        })
@ConditionalOnClass({DataSourceUtils.class, FenceGate.class})
@ConditionalOnBean(FenceGate.class)
public final class LeaseholdFenceAutoConfiguration {

    private static final String JTA_MANAGER = "org.springframework.transaction.jta.JtaTransactionManager";

    LeaseholdFenceAutoConfiguration() {}

    /**
     * The fence: the single (or {@code @Primary}) {@link FenceGate} bean's check, in the transaction Spring bound to a
     * {@link DataSource} of the context.
     *
     * @param gates       the gate beans: one, or one of them primary
     * @param dataSources the data source beans
     * @param beans       the bean factory, to find the leader initiators and a JTA transaction manager
     * @return the fence
     * @throws LeaseholdConfigurationException if there are several gates and none is primary (the message names them)
     */
    @Bean
    @ConditionalOnMissingBean
    LeaseholdFence leaseholdFence(
            ObjectProvider<FenceGate> gates, ObjectProvider<DataSource> dataSources, ListableBeanFactory beans) {
        FenceGate gate = gates.getIfUnique();
        if (gate == null) {
            throw new LeaseholdConfigurationException(
                    "LeaseholdFence needs one FenceGate, and the context has several: "
                            + Arrays.toString(beans.getBeanNamesForType(FenceGate.class)) + ".",
                    "Mark the FenceGate of the database your fenced writes go to @Primary, or define a LeaseholdFence"
                            + " bean of your own.",
                    null);
        }
        Map<String, DataSource> all = beans.getBeansOfType(DataSource.class, false, false);
        return new TransactionFence(
                gate, all, dataSources.getIfUnique(), new ElectionTokens(beans), () -> jtaManagers(beans));
    }

    /**
     * The names of the transaction manager beans that are a {@code JtaTransactionManager}, matched by class name so
     * that no JTA class has to be on the class path.
     */
    private static List<String> jtaManagers(ListableBeanFactory beans) {
        List<String> found = new ArrayList<>();
        for (String name : beans.getBeanNamesForType(PlatformTransactionManager.class, true, false)) {
            for (Class<?> type = beans.getType(name, false); type != null; type = type.getSuperclass()) {
                if (type.getName().equals(JTA_MANAGER)) {
                    found.add(name);
                    break;
                }
            }
        }
        return found;
    }

    /**
     * Adds {@link Fenced}'s advice, nearest each annotated bean (inside its transaction interceptor).
     *
     * @return the post-processor (static: it runs before the other beans exist)
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static FencedAdvisingPostProcessor leaseholdFencedAdvisingPostProcessor() {
        return new FencedAdvisingPostProcessor();
    }
}
