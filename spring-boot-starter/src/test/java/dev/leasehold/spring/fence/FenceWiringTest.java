package dev.leasehold.spring.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.fencedapp.Grants;
import dev.leasehold.spring.Fenced;
import dev.leasehold.spring.LeaseholdFence;
import dev.leasehold.spring.NotLeaderException;
import dev.leasehold.spring.lease.LeaseholdLeaseAutoConfiguration;
import dev.leasehold.spring.store.LeaseholdStoreAutoConfiguration;
import dev.leasehold.spring.zookeeper.LeaseholdZookeeperAutoConfiguration;
import dev.leasehold.store.FenceGate;
import jakarta.transaction.Status;
import jakarta.transaction.UserTransaction;
import javax.sql.DataSource;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.jta.JtaTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * How the fence is wired, on H2 with Boot's {@code JdbcTransactionManager}: the current grant's token on either
 * election backend (a follower is refused with {@link NotLeaderException}), several roles, the advice's place inside
 * the transaction interceptor whatever its order, JTA refused, the opt-out of the gate's refusal, and several gates.
 */
@Timeout(120)
class FenceWiringTest {

    private static TestingServer zk;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class,
                    TransactionAutoConfiguration.class,
                    LeaseholdZookeeperAutoConfiguration.class,
                    LeaseholdStoreAutoConfiguration.class,
                    LeaseholdLeaseAutoConfiguration.class,
                    LeaseholdFenceAutoConfiguration.class));

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zk = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 200, -1), true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zk.close();
    }

    @Test
    void onZooKeeperTheCheckTakesTheGrantsTokenAndAFollowerIsRefusedBeforeAnyStatement() {
        leaderAndFollower(
                "jdbc:h2:mem:fence-zk;DB_CLOSE_DELAY=-1",
                "leasehold.zookeeper.connect-string=" + zk.getConnectString());
    }

    @Test
    void onTheDatabaseLeaseTheCheckTakesTheGrantsTokenAndAFollowerIsRefusedBeforeAnyStatement() {
        leaderAndFollower("jdbc:h2:mem:fence-lease;DB_CLOSE_DELAY=-1", "leasehold.election.backend=jdbc");
    }

    private void leaderAndFollower(String url, String backend) {
        ApplicationContextRunner instance = runner.withPropertyValues("spring.datasource.url=" + url, backend)
                .withBean(Grants.class, () -> new Grants("wiring"));
        instance.withPropertyValues("leasehold.election.participant-id=a").run(a -> {
            long token = a.getBean(Grants.class).awaitGrant();
            instance.withPropertyValues("leasehold.election.participant-id=b").run(b -> {
                fenced(a, fence -> fence.check("wiring"));
                assertThat(a.getBean(FenceGate.class).highestToken("wiring")).hasValue(token);
                assertThatThrownBy(() -> fenced(b, fence -> fence.check("wiring")))
                        .isInstanceOf(NotLeaderException.class)
                        .hasMessageContaining("does not lead role 'wiring'");
                fenced(b, fence -> fence.check("wiring", token)); // an explicit token needs no grant
            });
        });
    }

    @Test
    void withSeveralRolesTheRoleIsNamedAndTheAdviceRunsInsideATransactionOrderedLast() {
        runner.withPropertyValues(
                        "spring.datasource.url=jdbc:h2:mem:fence-roles;DB_CLOSE_DELAY=-1",
                        "leasehold.election.backend=jdbc")
                .withBean("x", Grants.class, () -> new Grants("x"))
                .withBean("y", Grants.class, () -> new Grants("y"))
                .withUserConfiguration(LastOrderedTransactions.class)
                .run(context -> {
                    context.getBean("x", Grants.class).awaitGrant();
                    long y = context.getBean("y", Grants.class).awaitGrant();
                    assertThatThrownBy(() -> fenced(context, fence -> fence.check("roles")))
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("several roles [x, y]")
                            .hasMessageContaining("@Fenced(value = \"roles\", role = \"...\")")
                            .hasMessageContaining("LeaseholdFence.check(resource, token)");
                    RoleY service = context.getBean(RoleY.class);
                    service.write(); // inside the transaction, though its advisor is ordered LOWEST_PRECEDENCE
                    assertThat(context.getBean(FenceGate.class).highestToken("roles"))
                            .hasValue(y);
                    Advisor[] advisors = ((Advised) service).getAdvisors();
                    assertThat(advisors[advisors.length - 1].getAdvice()).isInstanceOf(FencedInterceptor.class);
                });
    }

    @Test
    void aJtaTransactionManagerIsRefusedWithAClearMessage() {
        runner.withPropertyValues("spring.datasource.url=jdbc:h2:mem:fence-jta;DB_CLOSE_DELAY=-1")
                .withBean(PlatformTransactionManager.class, () -> new JtaTransactionManager(new LocalUserTransaction()))
                .run(context -> assertThatThrownBy(() -> fenced(context, fence -> fence.check("jta", 1)))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("JTA/XA")
                        .hasMessageContaining("JtaTransactionManager"));
    }

    @Test
    void thePropertyLetsTheGateOpenItsOwnTransactionInsideASpringOne() {
        runner.withPropertyValues(
                        "spring.datasource.url=jdbc:h2:mem:fence-separate;DB_CLOSE_DELAY=-1",
                        "leasehold.store.separate-transactions-allowed=true")
                .run(context -> {
                    fenced(context, fence -> context.getBean(FenceGate.class).write("separate", 3, tx -> {}));
                    assertThat(context.getBean(FenceGate.class).highestToken("separate"))
                            .hasValue(3);
                });
        runner.withPropertyValues("spring.datasource.url=jdbc:h2:mem:fence-refused;DB_CLOSE_DELAY=-1")
                .run(context -> assertThatThrownBy(() -> fenced(context, fence -> context.getBean(FenceGate.class)
                                .call("refused", 3, tx -> 1)))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("@Fenced"));
    }

    @Test
    void severalGatesWithoutAPrimaryFailTheStartNamingThem() {
        runner.withPropertyValues("spring.datasource.url=jdbc:h2:mem:fence-gates;DB_CLOSE_DELAY=-1")
                .withUserConfiguration(TwoGates.class)
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("several")
                        .hasMessageContaining("gateA")
                        .hasMessageContaining("gateB"));
    }

    /** Runs {@code body} in a transaction of the context's transaction manager. */
    private static void fenced(ApplicationContext context, java.util.function.Consumer<LeaseholdFence> body) {
        LeaseholdFence fence = context.getBean(LeaseholdFence.class);
        new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
                .executeWithoutResult(status -> body.accept(fence));
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(order = Ordered.LOWEST_PRECEDENCE)
    static class LastOrderedTransactions {
        @Bean
        RoleY roleY() {
            return new RoleY();
        }
    }

    /** A bean fenced on the class, with role y's token. */
    @Fenced(value = "roles", role = "y")
    static class RoleY {
        @Transactional
        public void write() {}
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoGates {
        @Bean
        FenceGate gateA(DataSource dataSource) {
            return new FenceGate(dataSource);
        }

        @Bean
        FenceGate gateB(DataSource dataSource) {
            return new FenceGate(dataSource);
        }
    }

    /** A JTA user transaction with no resources: enough for Spring to run a JTA transaction. */
    static final class LocalUserTransaction implements UserTransaction {
        private int status = Status.STATUS_NO_TRANSACTION;

        @Override
        public void begin() {
            status = Status.STATUS_ACTIVE;
        }

        @Override
        public void commit() {
            status = Status.STATUS_NO_TRANSACTION;
        }

        @Override
        public void rollback() {
            status = Status.STATUS_NO_TRANSACTION;
        }

        @Override
        public void setRollbackOnly() {
            status = Status.STATUS_MARKED_ROLLBACK;
        }

        @Override
        public int getStatus() {
            return status;
        }

        @Override
        public void setTransactionTimeout(int seconds) {}
    }
}
