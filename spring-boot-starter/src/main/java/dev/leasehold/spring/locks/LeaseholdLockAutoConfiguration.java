package dev.leasehold.spring.locks;

import dev.leasehold.spring.FencedLockRegistry;
import dev.leasehold.spring.LeaseholdConfigurationException;
import dev.leasehold.spring.LeaseholdLockProperties;
import dev.leasehold.spring.store.LeaseholdStoreAutoConfiguration;
import dev.leasehold.spring.zookeeper.LeaseholdZookeeperAutoConfiguration;
import dev.leasehold.store.StoreConfig;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * A {@link FencedLockRegistry} bean when the application defines no {@link LockRegistry}: on ZooKeeper if the context
 * has a {@link CuratorFramework} (the starter's, from {@code leasehold.zookeeper.connect-string}, or the
 * application's), else on the {@link DataSource}; {@code leasehold.lock.backend} forces one. The database registry uses
 * the store's configuration (table prefix) and is created after the store's schema is installed. Only with Curator on the
 * class path, whatever the backend: {@code FencedLockRegistry.zookeeper} names {@code CuratorFramework}, and Spring
 * cannot read the methods of a bean's class whose signatures name a missing class. Without Curator: add
 * curator-framework (the registry then works on the database too), or use the store's {@code LeaseLock}.
 *
 * <p>Thread-safety: a configuration class; the registry is thread-safe.
 */
@AutoConfiguration(
        after = {LeaseholdZookeeperAutoConfiguration.class, LeaseholdStoreAutoConfiguration.class},
        afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass(
        value = LockRegistry.class,
        // FencedLockRegistry's zookeeper factory names CuratorFramework, and Spring reads every method of a bean's
        // class: without Curator (optional) no registry bean could be made, even on the database (WithoutCuratorTest)
        name = "org.apache.curator.framework.CuratorFramework")
@EnableConfigurationProperties(LeaseholdLockProperties.class)
public final class LeaseholdLockAutoConfiguration {

    LeaseholdLockAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    @Conditional(LockStoreAvailable.class)
    FencedLockRegistry leaseholdLockRegistry(
            LeaseholdLockProperties properties,
            ObjectProvider<CuratorFramework> curator,
            ObjectProvider<DataSource> dataSource,
            ObjectProvider<StoreConfig> storeConfig,
            BeanFactory beans) {
        CuratorFramework client = curator.getIfUnique();
        boolean zookeeper = properties.backend().equals("zookeeper")
                || (properties.backend().equals("auto") && client != null);
        if (zookeeper) {
            if (client == null) {
                throw new LeaseholdConfigurationException(
                        "leasehold.lock.backend=zookeeper, but the context has no single CuratorFramework",
                        "Set leasehold.zookeeper.connect-string, define a CuratorFramework bean, or set"
                                + " leasehold.lock.backend=jdbc.",
                        null);
            }
            return FencedLockRegistry.zookeeper(client, properties.root());
        }
        DataSource pool = dataSource.getIfUnique();
        if (pool == null) {
            throw new LeaseholdConfigurationException(
                    "leasehold.lock.backend=jdbc, but the context has no single DataSource",
                    "Define a DataSource (spring.datasource.*), or set leasehold.lock.backend=zookeeper with a Curator"
                            + " client.",
                    null);
        }
        if (beans.containsBean("leaseholdStoreSchema")) {
            beans.getBean("leaseholdStoreSchema"); // the lease table exists before the first lock
        }
        return FencedLockRegistry.jdbc(pool, storeConfig.getIfAvailable(StoreConfig::defaults), properties.ttl());
    }

    /** A Curator client or a data source to lock on. */
    static final class LockStoreAvailable extends AnyNestedCondition {

        LockStoreAvailable() {
            super(ConfigurationCondition.ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnBean(CuratorFramework.class)
        static final class OnCurator {}

        @ConditionalOnSingleCandidate(DataSource.class)
        static final class OnDataSource {}
    }
}
