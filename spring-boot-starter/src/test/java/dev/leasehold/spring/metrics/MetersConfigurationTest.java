package dev.leasehold.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.micrometer.BatchMeters;
import dev.leasehold.micrometer.ElectionMeters;
import dev.leasehold.micrometer.StoreMeters;
import dev.leasehold.spring.store.LeaseholdStoreAutoConfiguration;
import dev.leasehold.spring.zookeeper.FencedLeaderInitiator;
import dev.leasehold.spring.zookeeper.LeaseholdZookeeperAutoConfiguration;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FenceOutcome;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.StoreListener;
import dev.leasehold.store.claims.BatchClaims;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.DefaultCandidate;

/**
 * Which meters the starter binds: with {@code leasehold-micrometer} and a {@link MeterRegistry} bean, election meters
 * for each initiator, {@link StoreMeters} told by the store, {@link BatchMeters}; without either, none, and the
 * context starts all the same.
 */
class MetersConfigurationTest {

    private static TestingServer zk;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LeaseholdZookeeperAutoConfiguration.class,
                    LeaseholdStoreAutoConfiguration.class,
                    LeaseholdMetricsAutoConfiguration.class))
            .withUserConfiguration(OneCandidate.class, H2.class);

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zk = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 200, -1), true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zk.close();
    }

    @Test
    void aMeterRegistryGetsElectionMetersPerInitiatorAndStoreMetersThatTheStoreTells() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("leasehold.zookeeper.connect-string=" + zk.getConnectString())
                .run(context -> {
                    assertThat(context)
                            .hasNotFailed()
                            .hasSingleBean(LeaseholdElectionMeters.class)
                            .hasSingleBean(StoreMeters.class)
                            .hasSingleBean(LeaseholdBatchMeters.class);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    // Issue 29, item 6: nothing here uses BatchClaims (election and gate only): no batch gauge at all,
                    // where the starter used to register five that read NaN forever
                    assertThat(context.getBean(LeaseholdBatchMeters.class).meters())
                            .isEmpty();
                    assertThat(registry.find("leasehold.batches").gauges()).isEmpty();
                    FencedLeaderInitiator initiator = context.getBean(FencedLeaderInitiator.class);
                    assertThat(context.getBean(LeaseholdElectionMeters.class).of(initiator))
                            .isPresent();
                    assertThat(registry.get("leasehold.leader")
                                    .tag("election", "/leasehold/election/billing")
                                    .tag("participant", "instance-1")
                                    .gauge())
                            .isNotNull();
                    assertThat(context.getBean(StoreConfig.class).listener())
                            .isSameAs(context.getBean(StoreMeters.class));

                    context.getBean(FenceGate.class).advance("metered", 3);
                    assertThat(registry.get("leasehold.fence.writes")
                                    .tag("resource", "metered")
                                    .tag("outcome", "accepted")
                                    .counter()
                                    .count())
                            .isEqualTo(1.0);
                });
    }

    @Test
    void theStoreTellsTheStoreMetersAndTheApplicationsOwnStoreListener() {
        List<String> heard = new CopyOnWriteArrayList<>();
        StoreListener own = new StoreListener() {
            @Override
            public void fenceWrite(String resource, long token, FenceOutcome outcome) {
                heard.add(resource + " " + token + " " + outcome);
            }
        };
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean("ownStoreListener", StoreListener.class, () -> own)
                .withPropertyValues("leasehold.zookeeper.connect-string=" + zk.getConnectString())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    context.getBean(FenceGate.class).advance("told-twice", 4);
                    assertThat(heard).containsExactly("told-twice 4 ACCEPTED");
                    assertThat(context.getBean(MeterRegistry.class)
                                    .get("leasehold.fence.writes")
                                    .tag("resource", "told-twice")
                                    .counter()
                                    .count())
                            .isEqualTo(1.0);
                });
    }

    @Test
    void withoutAMeterRegistryThereAreNoMetersAndTheContextStarts() {
        runner.withPropertyValues("leasehold.zookeeper.connect-string=" + zk.getConnectString())
                .run(context -> {
                    assertThat(context)
                            .hasNotFailed()
                            .doesNotHaveBean(LeaseholdElectionMeters.class)
                            .doesNotHaveBean(StoreMeters.class)
                            .doesNotHaveBean(LeaseholdBatchMeters.class)
                            .hasSingleBean(FenceGate.class);
                    assertThat(context.getBean(FencedLeaderInitiator.class).isRunning())
                            .isTrue();
                    assertThat(context.getBean(StoreConfig.class).listener()).isSameAs(StoreListener.NONE);
                });
    }

    @Test
    void withoutTheMicrometerModuleARegistryGetsNoLeaseholdMeters() {
        runner.withClassLoader(new FilteredClassLoader(ElectionMeters.class))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("leasehold.zookeeper.connect-string=" + zk.getConnectString())
                .run(context -> {
                    assertThat(context)
                            .hasNotFailed()
                            .doesNotHaveBean(LeaseholdElectionMeters.class)
                            .doesNotHaveBean(StoreMeters.class);
                    assertThat(context.getBean(MeterRegistry.class)
                                    .find("leasehold.leader")
                                    .gauge())
                            .isNull();
                });
    }

    /** A bean of the application's that uses BatchClaims. */
    @Configuration(proxyBeanMethods = false)
    static class UsesBatchClaims {
        @Bean
        Supplier<BatchClaims> batchWorker(BatchClaims claims) {
            return () -> claims;
        }
    }

    /** Where BatchClaims is used, the starter registers the gauges and refreshes them: they never read NaN. */
    @Test
    void batchGaugesAreRegisteredWhereBatchClaimsIsUsedAndTheStarterRefreshesThem() {
        runner.withUserConfiguration(UsesBatchClaims.class)
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues(
                        "leasehold.zookeeper.connect-string=" + zk.getConnectString(),
                        "leasehold.store.batch-meters-refresh=5s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    BatchMeters meters =
                            context.getBean(LeaseholdBatchMeters.class).meters().orElseThrow();
                    assertThat(meters.lastRefresh())
                            .as("refreshed once at start")
                            .isPresent();
                    assertThat(context.getBean(MeterRegistry.class)
                                    .get("leasehold.batches")
                                    .tag("status", "pending")
                                    .gauge()
                                    .value())
                            .isEqualTo(
                                    (double) meters.lastRefresh().orElseThrow().pending());
                });
    }

    @Test
    void aRefreshPeriodOutOfRangeFailsTheStartNamingTheProperty() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues(
                        "leasehold.zookeeper.connect-string=" + zk.getConnectString(),
                        "leasehold.store.batch-meters-refresh=10ms")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("leasehold.store.batch-meters-refresh must be from PT1S to PT1H"));
    }

    @Configuration(proxyBeanMethods = false)
    static class OneCandidate {
        @Bean
        Candidate candidate() {
            return new DefaultCandidate("instance-1", "billing");
        }
    }

    /** The same in-memory database as {@code StarterConfigurationTest}'s (one URL, one database per JVM). */
    @Configuration(proxyBeanMethods = false)
    static class H2 {
        @Bean
        DataSource dataSource() {
            JdbcDataSource dataSource = new JdbcDataSource();
            dataSource.setURL("jdbc:h2:mem:starter-config;DB_CLOSE_DELAY=-1");
            return dataSource;
        }
    }
}
