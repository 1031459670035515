package dev.leasehold.spring.locks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.spring.FencedLock;
import dev.leasehold.spring.FencedLockRegistry;
import dev.leasehold.spring.LeaseholdLockProperties;
import dev.leasehold.spring.store.LeaseholdStoreAutoConfiguration;
import dev.leasehold.spring.zookeeper.LeaseholdZookeeperAutoConfiguration;
import java.util.UUID;
import javax.sql.DataSource;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Which {@link FencedLockRegistry} the starter defines: on ZooKeeper when a Curator client is configured, else on the
 * {@code DataSource} (the store's schema installed first), none when the application has a {@link LockRegistry}, and
 * {@code leasehold.lock.*} checked at start.
 */
class LockAutoConfigurationTest {

    private static TestingServer zk;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LeaseholdZookeeperAutoConfiguration.class,
                    LeaseholdStoreAutoConfiguration.class,
                    LeaseholdLockAutoConfiguration.class))
            .withPropertyValues("leasehold.zookeeper.readiness=false");

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zk = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 200, -1), true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zk.close();
    }

    private static DataSource h2() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:lock-auto-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        return h2;
    }

    @Test
    void aConfiguredCuratorClientGivesTheZooKeeperRegistry() {
        runner.withBean(DataSource.class, LockAutoConfigurationTest::h2)
                .withPropertyValues(
                        "leasehold.zookeeper.connect-string=" + zk.getConnectString(), "leasehold.lock.root=/app/locks")
                .run(context -> {
                    assertThat(context).hasSingleBean(FencedLockRegistry.class);
                    FencedLockRegistry registry = context.getBean(FencedLockRegistry.class);
                    assertThat(registry.toString()).contains("zookeeper /app/locks");
                    FencedLock lock = registry.obtain("nightly");
                    lock.lock();
                    assertThat(lock.token()).isPositive();
                    lock.unlock();
                });
    }

    @Test
    void withoutCuratorTheDataSourceGivesTheJdbcRegistryOnTheInstalledSchema() {
        runner.withBean(DataSource.class, LockAutoConfigurationTest::h2)
                .withPropertyValues("leasehold.lock.ttl=30s", "leasehold.store.table-prefix=app_")
                .run(context -> {
                    FencedLockRegistry registry = context.getBean(FencedLockRegistry.class);
                    assertThat(registry.toString())
                            .contains("jdbc")
                            .contains("app_leases")
                            .contains("PT30S");
                    FencedLock lock = registry.obtain("nightly");
                    lock.lock();
                    assertThat(lock.token()).isEqualTo(1);
                    lock.unlock();
                });
    }

    @Test
    void theBackendCanBeForced() {
        runner.withBean(DataSource.class, LockAutoConfigurationTest::h2)
                .withPropertyValues(
                        "leasehold.zookeeper.connect-string=" + zk.getConnectString(), "leasehold.lock.backend=JDBC")
                .run(context -> assertThat(
                                context.getBean(FencedLockRegistry.class).toString())
                        .contains("jdbc"));
        runner.withBean(DataSource.class, LockAutoConfigurationTest::h2)
                .withPropertyValues("leasehold.lock.backend=zookeeper")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("no single CuratorFramework");
                });
    }

    @Test
    void anApplicationsOwnLockRegistryWins() {
        runner.withBean(DataSource.class, LockAutoConfigurationTest::h2)
                .withBean(LockRegistry.class, DefaultLockRegistry::new)
                .run(context -> assertThat(context).doesNotHaveBean(FencedLockRegistry.class));
    }

    @Test
    void noStoreNoRegistry() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(FencedLockRegistry.class));
    }

    @Test
    void badPropertiesFailTheStartNamingTheProperty() {
        for (String bad :
                new String[] {"leasehold.lock.backend=redis", "leasehold.lock.root=locks", "leasehold.lock.ttl=0s"}) {
            runner.withBean(DataSource.class, LockAutoConfigurationTest::h2)
                    .withPropertyValues(bad)
                    .run(context -> {
                        assertThat(context).hasFailed();
                        assertThat(context.getStartupFailure())
                                .rootCause()
                                .hasMessageContaining(bad.substring(0, bad.indexOf('=')));
                    });
        }
        assertThat(new LeaseholdLockProperties("auto", "/leasehold/locks", java.time.Duration.ofSeconds(10)).backend())
                .isEqualTo("auto");
    }
}
