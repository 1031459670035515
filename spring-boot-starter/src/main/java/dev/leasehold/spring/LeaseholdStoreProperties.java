package dev.leasehold.spring;

import dev.leasehold.store.StoreConfig;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code leasehold.store.*} properties: the fenced store's beans ({@code FenceGate}, {@code BatchClaims},
 * {@code SlotRuns}). Checked when bound, so a bad value fails the application context at start with a message that
 * names the property and what is allowed.
 *
 * <p>Thread-safety: an immutable record.
 *
 * @param tablePrefix   prefixed to every table name, checked by the store: {@code [a-z][a-z0-9_]{0,29}}
 * @param installSchema whether to create or upgrade the store's tables at start ({@code FencedSchema.install});
 *                      turn it off when Flyway or Liquibase applies {@code FencedSchema.ddl}
 * @param batchMetersRefresh how often the starter refreshes the batch gauges ({@code leasehold.batches}), which it
 *                      registers only when a bean uses {@code BatchClaims}; from 1 s to 1 h
 * @param separateTransactionsAllowed whether the starter's {@code FenceGate} may open its own transaction
 *                      ({@code write}, {@code call}, {@code update}) while a Spring transaction on the same
 *                      {@code DataSource} is active on the thread: off by default, because such a write is not
 *                      fenced with the Spring transaction (use {@code @Fenced} or {@code LeaseholdFence.check}); turn
 *                      it on for code that means two separate transactions
 */
@ConfigurationProperties("leasehold.store")
public record LeaseholdStoreProperties(
        @DefaultValue(StoreConfig.DEFAULT_PREFIX) String tablePrefix,
        @DefaultValue("true") boolean installSchema,
        @DefaultValue("30s") Duration batchMetersRefresh,
        @DefaultValue("false") boolean separateTransactionsAllowed) {

    /**
     * The properties with every default.
     *
     * @return the defaults: the store's default table prefix, the schema installed, gauges refreshed every 30 s, the
     *     gate refused inside a Spring transaction on its data source
     */
    public static LeaseholdStoreProperties defaults() {
        return new LeaseholdStoreProperties(StoreConfig.DEFAULT_PREFIX, true, Duration.ofSeconds(30), false);
    }

    /**
     * Checks the prefix with the store's own rule, and the refresh period.
     *
     * @param tablePrefix        the table prefix
     * @param installSchema      whether to install the schema
     * @param batchMetersRefresh how often the starter refreshes the batch gauges; from 1 s to 1 h
     * @param separateTransactionsAllowed whether the starter's gate may open its own transaction inside a Spring
     *                           transaction on the same data source
     */
    public LeaseholdStoreProperties {
        PropertyChecks.between(
                batchMetersRefresh, Duration.ofSeconds(1), Duration.ofHours(1), "leasehold.store.batch-meters-refresh");
        try {
            StoreConfig.defaults().withTablePrefix(tablePrefix);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("leasehold.store.table-prefix: " + e.getMessage(), e);
        }
    }

    /**
     * The store's configuration.
     *
     * @return the default configuration with this table prefix
     */
    public StoreConfig toStoreConfig() {
        return StoreConfig.defaults().withTablePrefix(tablePrefix);
    }

    /**
     * A copy with another value.
     *
     * @param tablePrefix the table prefix
     * @return a copy with it
     */
    public LeaseholdStoreProperties withTablePrefix(String tablePrefix) {
        return new LeaseholdStoreProperties(
                tablePrefix, installSchema, batchMetersRefresh, separateTransactionsAllowed);
    }

    /**
     * A copy with another value.
     *
     * @param installSchema whether to install the schema
     * @return a copy with it
     */
    public LeaseholdStoreProperties withInstallSchema(boolean installSchema) {
        return new LeaseholdStoreProperties(
                tablePrefix, installSchema, batchMetersRefresh, separateTransactionsAllowed);
    }

    /**
     * A copy with another value.
     *
     * @param batchMetersRefresh how often the starter refreshes the batch gauges
     * @return a copy with it
     */
    public LeaseholdStoreProperties withBatchMetersRefresh(Duration batchMetersRefresh) {
        return new LeaseholdStoreProperties(
                tablePrefix, installSchema, batchMetersRefresh, separateTransactionsAllowed);
    }

    /**
     * A copy with another value.
     *
     * @param separateTransactionsAllowed whether the starter's gate may open its own transaction inside a Spring
     *                                    transaction on the same data source
     * @return a copy with it
     */
    public LeaseholdStoreProperties withSeparateTransactionsAllowed(boolean separateTransactionsAllowed) {
        return new LeaseholdStoreProperties(
                tablePrefix, installSchema, batchMetersRefresh, separateTransactionsAllowed);
    }
}
