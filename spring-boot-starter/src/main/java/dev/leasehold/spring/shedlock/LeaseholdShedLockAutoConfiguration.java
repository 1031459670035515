package dev.leasehold.spring.shedlock;

import dev.leasehold.shedlock.JdbcFencedLockProvider;
import dev.leasehold.shedlock.ZookeeperFencedLockProvider;
import dev.leasehold.spring.LeaseholdConfigurationException;
import dev.leasehold.spring.LeaseholdShedLockProperties;
import dev.leasehold.spring.internal.OptionalCurator;
import dev.leasehold.spring.store.LeaseholdStoreAutoConfiguration;
import dev.leasehold.spring.zookeeper.LeaseholdZookeeperAutoConfiguration;
import dev.leasehold.store.StoreConfig;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockProvider;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * A fenced ShedLock {@link LockProvider} when the application has ShedLock and {@code leasehold-shedlock} on its class
 * path and defines no {@code LockProvider} of its own: a {@link JdbcFencedLockProvider} on the context's {@code
 * DataSource} (with the store's {@code StoreConfig}, after the store's auto-configuration installed the schema), or a
 * {@link ZookeeperFencedLockProvider} on the context's {@code CuratorFramework} under {@code
 * leasehold.shedlock.base-path}. {@code leasehold.shedlock.provider} chooses; unset, the database when there is one
 * {@code DataSource}, else ZooKeeper when there is a Curator client.
 *
 * <p>Thread-safety: a configuration class; the providers are thread-safe.
 */
@AutoConfiguration(
        after = {LeaseholdStoreAutoConfiguration.class, LeaseholdZookeeperAutoConfiguration.class},
        afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass({LockProvider.class, JdbcFencedLockProvider.class})
@EnableConfigurationProperties(LeaseholdShedLockProperties.class)
public final class LeaseholdShedLockAutoConfiguration {

    /** The store's auto-configuration's bean that installs the schema (its type is not public). */
    private static final String STORE_SCHEMA = "leaseholdStoreSchema";

    LeaseholdShedLockAutoConfiguration() {}

    /**
     * The fenced lock provider, unless the application defines a {@link LockProvider}.
     *
     * @param properties  the {@code leasehold.shedlock.*} properties
     * @param dataSources the application's data source, if it has exactly one
     * @param configs     the store's configuration (table prefix), if there is one
     * @param beans       the bean factory, to create the store's schema bean first so the lease table exists, and to
     *     find the Curator client (the starter's or the application's) if there is one and Curator is on the class
     *     path ({@link OptionalCurator}: with the JDBC provider Curator is not needed)
     * @return the provider
     * @throws LeaseholdConfigurationException if the chosen provider's store is missing, or neither is there
     */
    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    LockProvider leaseholdLockProvider(
            LeaseholdShedLockProperties properties,
            ObjectProvider<DataSource> dataSources,
            ObjectProvider<StoreConfig> configs,
            BeanFactory beans) {
        String provider = properties.provider();
        DataSource dataSource = dataSources.getIfUnique();
        Object client = OptionalCurator.uniqueClient(beans);
        if (provider == null) {
            provider = dataSource != null
                    ? LeaseholdShedLockProperties.JDBC
                    : client != null ? LeaseholdShedLockProperties.ZOOKEEPER : null;
        }
        if (provider == null) {
            throw new LeaseholdConfigurationException(
                    "A fenced ShedLock LockProvider needs a DataSource or a CuratorFramework bean; there is neither.",
                    "Define one DataSource (or set leasehold.zookeeper.connect-string), or define a LockProvider"
                            + " bean of your own.",
                    null);
        }
        if (provider.equals(LeaseholdShedLockProperties.JDBC)) {
            if (dataSource == null) {
                throw new LeaseholdConfigurationException(
                        "leasehold.shedlock.provider=jdbc needs exactly one DataSource bean.",
                        "Define one DataSource, or set leasehold.shedlock.provider=zookeeper.",
                        null);
            }
            if (beans.containsBean(STORE_SCHEMA)) {
                beans.getBean(STORE_SCHEMA); // installs (or upgrades) the lease table first
            }
            StoreConfig config = configs.getIfAvailable(StoreConfig::defaults);
            return new JdbcFencedLockProvider(dataSource, config);
        }
        if (client == null) {
            throw new LeaseholdConfigurationException(
                    "leasehold.shedlock.provider=zookeeper needs a CuratorFramework bean.",
                    "Set leasehold.zookeeper.connect-string or define a CuratorFramework bean, or set"
                            + " leasehold.shedlock.provider=jdbc.",
                    null);
        }
        return new ZookeeperFencedLockProvider((CuratorFramework) client, properties.basePath());
    }
}
