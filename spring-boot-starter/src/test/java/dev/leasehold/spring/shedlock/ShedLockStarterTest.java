package dev.leasehold.spring.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.shedlock.FencedLocks;
import dev.leasehold.shedlock.JdbcFencedLockProvider;
import dev.leasehold.shedlock.ZookeeperFencedLockProvider;
import dev.leasehold.spring.store.LeaseholdStoreAutoConfiguration;
import dev.leasehold.spring.zookeeper.LeaseholdZookeeperAutoConfiguration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Issue 44, Spring: with ShedLock's {@code @EnableSchedulerLock}, the starter makes a fenced {@link LockProvider} when
 * the application defines none, and a {@code @SchedulerLock} method reads its lock's token with {@link
 * FencedLocks#currentToken()}; outside it, there is none.
 */
class ShedLockStarterTest {

    private static TestingServer zk;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LeaseholdZookeeperAutoConfiguration.class,
                    LeaseholdStoreAutoConfiguration.class,
                    LeaseholdShedLockAutoConfiguration.class));

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zk = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 200, -1), true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zk.close();
    }

    @Test
    void aSchedulerLockMethodReadsItsTokenOnTheDatabaseByDefault() {
        runner.withUserConfiguration(Database.class, Application.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(LockProvider.class)).isInstanceOf(JdbcFencedLockProvider.class);
            NightlyJob job = context.getBean(NightlyJob.class);
            long first = NightlyJob.run(job);
            long second = NightlyJob.run(job);
            assertThat(first).isPositive();
            assertThat(second).as("every acquisition's token is higher").isGreaterThan(first);
            assertThatThrownBy(FencedLocks::currentToken)
                    .as("outside the method, and after it, the thread holds no token")
                    .isInstanceOf(IllegalStateException.class);
        });
    }

    @Test
    void onZooKeeperTheMethodReadsAZxidUnderTheBasePath() {
        runner.withUserConfiguration(Application.class)
                .withPropertyValues(
                        "leasehold.zookeeper.connect-string=" + zk.getConnectString(),
                        "leasehold.shedlock.base-path=/app/locks")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(LockProvider.class)).isInstanceOf(ZookeeperFencedLockProvider.class);
                    assertThat(NightlyJob.run(context.getBean(NightlyJob.class)))
                            .isPositive();
                    assertThat(context.getBean(org.apache.curator.framework.CuratorFramework.class)
                                    .checkExists()
                                    .forPath("/app/locks/nightly"))
                            .isNotNull();
                    assertThatThrownBy(FencedLocks::currentToken).isInstanceOf(IllegalStateException.class);
                });
    }

    @Test
    void theApplicationsOwnLockProviderIsKept() {
        runner.withUserConfiguration(Database.class, Application.class, OwnProvider.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(LockProvider.class)).isSameAs(OwnProvider.PROVIDER);
                });
    }

    @Test
    void aBadProviderFailsTheStartNamingTheProperty() {
        runner.withUserConfiguration(Database.class, Application.class)
                .withPropertyValues("leasehold.shedlock.provider=redis")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(rootCause(context.getStartupFailure()))
                            .hasMessageContaining("leasehold.shedlock.provider must be 'jdbc' or 'zookeeper'")
                            .hasMessageContaining("redis");
                });
    }

    @Test
    void zookeeperChosenWithoutAClientFailsTheStartNamingIt() {
        runner.withUserConfiguration(Database.class, Application.class)
                .withPropertyValues("leasehold.shedlock.provider=zookeeper")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(rootCause(context.getStartupFailure()))
                            .hasMessageContaining("leasehold.shedlock.provider=zookeeper needs a CuratorFramework");
                });
    }

    private static Throwable rootCause(Throwable failure) {
        Throwable t = failure;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    @Configuration(proxyBeanMethods = false)
    @EnableSchedulerLock(defaultLockAtMostFor = "PT30S")
    static class Application {
        @Bean
        NightlyJob nightlyJob() {
            return new NightlyJob();
        }
    }

    /**
     * A job as ShedLock users write it (void: ShedLock's AOP refuses a method returning a primitive); run directly here,
     * without a scheduler, through the proxy ({@link #run}).
     */
    static class NightlyJob {
        private final AtomicLong seen = new AtomicLong();

        @SchedulerLock(name = "nightly", lockAtMostFor = "PT30S")
        public void nightly() {
            seen.set(FencedLocks.currentToken());
        }

        long seen() {
            return seen.get();
        }

        /** Calls the proxy's {@code nightly()} (a call on {@code this} inside the bean would bypass the lock). */
        static long run(NightlyJob proxy) {
            proxy.nightly();
            return proxy.seen();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Database {
        @Bean
        DataSource dataSource() {
            JdbcDataSource ds = new JdbcDataSource();
            ds.setURL("jdbc:h2:mem:shedlock_starter;DB_CLOSE_DELAY=-1");
            return ds;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnProvider {
        static final LockProvider PROVIDER = new LockProvider() {
            @Override
            public Optional<SimpleLock> lock(LockConfiguration lockConfiguration) {
                return Optional.empty();
            }
        };

        @Bean
        LockProvider lockProvider() {
            return PROVIDER;
        }
    }
}
