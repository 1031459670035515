package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.spring.actuate.LeaseholdActuatorAutoConfiguration;
import dev.leasehold.spring.internal.LeaseholdFailureAnalyzer;
import dev.leasehold.spring.store.LeaseholdStoreAutoConfiguration;
import dev.leasehold.spring.zookeeper.FencedLeaderInitiator;
import dev.leasehold.spring.zookeeper.LeaseholdZookeeperAutoConfiguration;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.claims.BatchClaims;
import dev.leasehold.store.slots.SlotRuns;
import java.io.InputStream;
import java.net.URL;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Properties;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;

/**
 * What the auto-configuration makes, and how bad configuration fails the context: with one clear message, before
 * anything joins an election.
 */
class StarterConfigurationTest {

    private static TestingServer zk;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LeaseholdZookeeperAutoConfiguration.class,
                    LeaseholdStoreAutoConfiguration.class,
                    LeaseholdActuatorAutoConfiguration.class));

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zk = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 200, -1), true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zk.close();
    }

    @Test
    void aCandidateWithoutAConnectStringOrAClientBeanFailsTheContextWithOneClearMessage() throws Exception {
        runner.withUserConfiguration(OneCandidate.class).run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            FailureAnalysis analysis = new LeaseholdFailureAnalyzer().analyze(failure);
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription())
                    .isEqualTo("The Candidate bean 'candidate' (role 'billing') needs"
                            + " ZooKeeper, but there is no CuratorFramework bean and leasehold.zookeeper.connect-string is"
                            + " not set.");
            assertThat(analysis.getAction()).contains("leasehold.zookeeper.connect-string");
        });
        assertThat(failureAnalyzers())
                .as("Spring Boot reports the failure through the starter's analyzer")
                .contains(LeaseholdFailureAnalyzer.class.getName());
    }

    @Test
    void aCandidateWithABlankRoleFailsTheContextWithOneClearMessage() {
        runner.withUserConfiguration(BlankRole.class)
                .withPropertyValues("leasehold.zookeeper.connect-string=" + zk.getConnectString())
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = new LeaseholdFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription())
                            .startsWith("The Candidate bean 'candidate' cannot take"
                                    + " part in a fenced election: the Candidate")
                            .contains("has a blank role");
                });
    }

    @Test
    void aTablePrefixTheStoreRejectsFailsTheContextNamingTheProperty() {
        runner.withUserConfiguration(H2.class)
                .withPropertyValues("leasehold.store.table-prefix=Billing-")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(messages(context.getStartupFailure()))
                            .contains("leasehold.store.table-prefix: tablePrefix must match [a-z][a-z0-9_]{0,29}"
                                    + " (lower-case letters, digits, underscores; a letter first; at most 30"
                                    + " characters), was 'Billing-'");
                    assertThat(tableExists(H2.DATA_SOURCE, "BILLING_FENCE")).isFalse();
                });
    }

    @Test
    void aDataSourceGetsTheStoreBeansOnTablesWithTheConfiguredPrefix() {
        runner.withUserConfiguration(H2.class)
                .withPropertyValues("leasehold.store.table-prefix=billing_")
                .run(context -> {
                    assertThat(context)
                            .hasNotFailed()
                            .hasSingleBean(FenceGate.class)
                            .hasSingleBean(BatchClaims.class)
                            .hasSingleBean(SlotRuns.class)
                            .doesNotHaveBean(CuratorFramework.class)
                            .doesNotHaveBean(FencedLeaderInitiator.class);
                    assertThat(tableExists(H2.DATA_SOURCE, "BILLING_FENCE")).isTrue();
                    context.getBean(FenceGate.class).advance("r", 5);
                    assertThat(context.getBean(FenceGate.class).highestToken("r"))
                            .hasValue(5);
                });
    }

    @Test
    void withoutADataSourceThereAreNoStoreBeans() {
        runner.run(context -> assertThat(context)
                .hasNotFailed()
                .doesNotHaveBean(FenceGate.class)
                .doesNotHaveBean(BatchClaims.class)
                .doesNotHaveBean(SlotRuns.class));
    }

    @Test
    void anApplicationsOwnClientIsUsedAndLeftOpenAtClose() throws Exception {
        try (CuratorFramework own = CuratorFrameworkFactory.newClient(zk.getConnectString(), new RetryOneTime(10))) {
            own.start();
            runner.withUserConfiguration(OneCandidate.class)
                    .withBean(CuratorFramework.class, () -> own, definition -> definition.setDestroyMethodName(""))
                    .withPropertyValues("leasehold.zookeeper.connect-string=" + zk.getConnectString())
                    .run(context -> {
                        assertThat(context).hasNotFailed().hasSingleBean(CuratorFramework.class);
                        assertThat(context.getBean(CuratorFramework.class)).isSameAs(own);
                        FencedLeaderInitiator initiator = context.getBean(FencedLeaderInitiator.class);
                        assertThat(initiator.electionPath()).isEqualTo("/leasehold/election/billing");
                        assertThat(initiator.participantId()).isEqualTo("instance-1");
                    });
            assertThat(own.getState()).isEqualTo(CuratorFrameworkState.STARTED);
        }
    }

    @Test
    void theStartersClientIsClosedWithTheContextAfterTheInitiatorStopped() {
        CuratorFramework[] client = new CuratorFramework[1];
        FencedLeaderInitiator[] initiator = new FencedLeaderInitiator[1];
        runner.withUserConfiguration(OneCandidate.class)
                .withPropertyValues(
                        "leasehold.zookeeper.connect-string=" + zk.getConnectString(),
                        "leasehold.election.root=/apps/billing")
                .run(context -> {
                    client[0] = context.getBean(CuratorFramework.class);
                    initiator[0] = context.getBean(FencedLeaderInitiator.class);
                    assertThat(client[0].getState()).isEqualTo(CuratorFrameworkState.STARTED);
                    assertThat(initiator[0].isRunning()).isTrue();
                    assertThat(initiator[0].electionPath()).isEqualTo("/apps/billing/billing");
                });
        assertThat(initiator[0].isRunning()).isFalse();
        assertThat(client[0].getState()).isEqualTo(CuratorFrameworkState.STOPPED);
    }

    private static List<String> failureAnalyzers() throws Exception {
        List<String> names = new ArrayList<>();
        Enumeration<URL> files =
                StarterConfigurationTest.class.getClassLoader().getResources("META-INF/spring.factories");
        while (files.hasMoreElements()) {
            Properties factories = new Properties();
            try (InputStream in = files.nextElement().openStream()) {
                factories.load(in);
            }
            for (String name :
                    factories.getProperty(FailureAnalyzer.class.getName(), "").split(",")) {
                names.add(name.strip());
            }
        }
        return names;
    }

    static List<String> messages(Throwable failure) {
        List<String> messages = new ArrayList<>();
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            messages.add(cause.getMessage());
        }
        return messages;
    }

    private static boolean tableExists(DataSource ds, String table) throws Exception {
        try (Connection c = ds.getConnection();
                ResultSet rs = c.getMetaData().getTables(null, null, table, null)) {
            return rs.next();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OneCandidate {
        @Bean
        Candidate candidate() {
            return new DefaultCandidate("instance-1", "billing");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BlankRole {
        @Bean
        Candidate candidate() {
            return new Candidate() { // DefaultCandidate would replace a blank role with "leader"
                @Override
                public String getRole() {
                    return " ";
                }

                @Override
                public String getId() {
                    return "instance-1";
                }

                @Override
                public void onGranted(Context context) {}

                @Override
                public void onRevoked(Context context) {}
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class H2 {
        static final JdbcDataSource DATA_SOURCE = new JdbcDataSource();

        static {
            DATA_SOURCE.setURL("jdbc:h2:mem:starter-config;DB_CLOSE_DELAY=-1");
        }

        @Bean
        DataSource dataSource() {
            return DATA_SOURCE;
        }
    }
}
