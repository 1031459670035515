package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.micrometer.BatchMeters;
import dev.leasehold.micrometer.ElectionMeters;
import dev.leasehold.micrometer.StoreMeters;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FenceOutcome;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.StoreListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Which meters the starter binds: with {@code leasehold-micrometer} and a {@link MeterRegistry} bean, election meters
 * for each initiator, {@link StoreMeters} told by the store, {@link BatchMeters}; without either, none, and the
 * context starts all the same.
 */
class MetersConfigurationTest {

    private static TestingServer zk;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LeaseholdAutoConfiguration.class,
                    LeaseholdStoreAutoConfiguration.class,
                    LeaseholdMetricsAutoConfiguration.class))
            .withUserConfiguration(StarterConfigurationTest.OneCandidate.class, StarterConfigurationTest.H2.class);

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
                            .hasSingleBean(BatchMeters.class);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
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
                            .doesNotHaveBean(BatchMeters.class)
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
}
