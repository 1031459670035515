package dev.leasehold.spring.store;

import dev.leasehold.spring.LeaseholdStoreProperties;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.StoreException;
import dev.leasehold.store.StoreListener;
import dev.leasehold.store.claims.BatchClaims;
import dev.leasehold.store.slots.SlotRuns;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;

/**
 * The fenced store's beans, when the application has one {@link DataSource}: {@link FenceGate}, {@link BatchClaims}
 * and {@link SlotRuns} on a {@link StoreConfig} from {@code leasehold.store.table-prefix}, with the schema installed
 * (or upgraded) first unless {@code leasehold.store.install-schema=false}.
 *
 * <p>Thread-safety: a configuration class; the store's beans are thread-safe.
 */
@AutoConfiguration(afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass(FenceGate.class)
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties(LeaseholdStoreProperties.class)
public final class LeaseholdStoreAutoConfiguration {

    LeaseholdStoreAutoConfiguration() {}

    /**
     * The store's configuration, telling the application's {@link StoreListener} beans (the starter's
     * {@code StoreMeters} among them, when Micrometer is present). A {@code StoreConfig} bean of your own replaces
     * this one and gets no listener from the starter: give it yours with {@code withListener}.
     *
     * @param properties the {@code leasehold.store.*} properties
     * @param listeners  the {@link StoreListener} beans, told in their order; resolved when this bean is created, so
     *                   every listener bean defined by any configuration is found
     * @return the default configuration with the table prefix and the listeners set
     */
    @Bean
    @ConditionalOnMissingBean
    StoreConfig leaseholdStoreConfig(LeaseholdStoreProperties properties, ObjectProvider<StoreListener> listeners) {
        return properties
                .toStoreConfig()
                .withListener(StoreListeners.of(listeners.orderedStream().toList()));
    }

    /**
     * The store's tables, installed or upgraded at start (idempotent; nothing is created when they are current), or
     * with {@code leasehold.store.install-schema=false} verified, after Flyway or Liquibase ran: a role that may not
     * create tables, or a schema that is missing or not granted, fails the start with one message naming the fix.
     *
     * @param dataSource the application's data source
     * @param config     the store's configuration
     * @param properties the {@code leasehold.store.*} properties
     * @return a marker the store's beans depend on
     */
    @Bean
    @DependsOnDatabaseInitialization
    StoreSchema leaseholdStoreSchema(DataSource dataSource, StoreConfig config, LeaseholdStoreProperties properties) {
        if (properties.installSchema()) {
            try {
                FencedSchema.install(dataSource, config);
            } catch (StoreException e) {
                throw SchemaFailures.install(e, config);
            }
        } else {
            try {
                FencedSchema.verify(dataSource, config);
            } catch (StoreException e) {
                throw SchemaFailures.verify(e, config);
            }
        }
        return new StoreSchema(properties.installSchema());
    }

    /**
     * The fence gate. Unless {@code leasehold.store.separate-transactions-allowed=true}, it refuses to open a
     * transaction of its own ({@code write}, {@code call}, {@code update}) while a Spring transaction on the same data
     * source is active on the thread, before sending anything: that write would not be fenced with the Spring
     * transaction ({@code @Fenced} or {@code LeaseholdFence.check} is).
     *
     * @param dataSource the application's data source
     * @param config     the store's configuration
     * @param schema     installed first
     * @param properties the {@code leasehold.store.*} properties
     * @return the gate
     */
    @Bean
    @ConditionalOnMissingBean
    FenceGate fenceGate(
            DataSource dataSource, StoreConfig config, StoreSchema schema, LeaseholdStoreProperties properties) {
        return new FenceGate(
                properties.separateTransactionsAllowed()
                        ? dataSource
                        : new SpringTransactionGuard(dataSource, String.valueOf(dataSource)),
                config);
    }

    /**
     * Batch claims.
     *
     * @param dataSource the application's data source
     * @param config     the store's configuration
     * @param schema     installed first
     * @return the claims
     */
    @Bean
    @ConditionalOnMissingBean
    BatchClaims batchClaims(DataSource dataSource, StoreConfig config, StoreSchema schema) {
        return new BatchClaims(dataSource, config);
    }

    /**
     * Slot runs.
     *
     * @param dataSource the application's data source
     * @param config     the store's configuration
     * @param schema     installed first
     * @return the slot runs
     */
    @Bean
    @ConditionalOnMissingBean
    SlotRuns slotRuns(DataSource dataSource, StoreConfig config, StoreSchema schema) {
        return new SlotRuns(dataSource, config);
    }

    /**
     * Whether the starter installed the store's schema at start: the bean {@code leaseholdStoreSchema}, which the
     * store's beans and the lease backend's initiators depend on so that the tables exist first.
     *
     * <p>Thread-safety: an immutable record.
     *
     * @param installed {@code true} if {@code FencedSchema.install} ran at start
     */
    record StoreSchema(boolean installed) {}
}
