package dev.leasehold.spring.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.spring.LeaseholdConfigurationException;
import dev.leasehold.spring.actuate.LeaseholdActuatorAutoConfiguration;
import dev.leasehold.spring.actuate.LeaseholdLeaseHealthIndicator;
import dev.leasehold.spring.store.LeaseholdStoreAutoConfiguration;
import dev.leasehold.spring.zookeeper.FencedLeaderInitiator;
import dev.leasehold.spring.zookeeper.LeaseholdZookeeperAutoConfiguration;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.DefaultCandidate;

/**
 * Issue 46, configuration errors at start: {@code leasehold.election.backend} is checked always (before, {@code jbdc}
 * or an empty value started with no election at all, and the job never ran on any replica); a candidate that needs
 * ZooKeeper without one is told of the {@code jdbc} backend too; and without Curator on the class path (its
 * dependencies are optional now) the {@code jdbc} backend runs, while the default backend fails naming both fixes.
 */
class BackendChoiceTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LeaseholdZookeeperAutoConfiguration.class,
                    LeaseholdStoreAutoConfiguration.class,
                    LeaseholdLeaseAutoConfiguration.class,
                    LeaseholdActuatorAutoConfiguration.class))
            .withUserConfiguration(Application.class)
            .withPropertyValues("leasehold.election.lease.retry-period=100ms");

    @Test
    void aMisspelledBackendFailsTheStartNamingWhatWasGiven() {
        runner.withPropertyValues("leasehold.election.backend=jbdc").run(context -> assertThat(context)
                .hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("leasehold.election.backend must be 'zookeeper' or 'jdbc', was 'jbdc'"));
    }

    @Test
    void anEmptyBackendFailsTheStart() {
        runner.withPropertyValues("leasehold.election.backend=").run(context -> assertThat(context)
                .hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("leasehold.election.backend must be 'zookeeper' or 'jdbc', was ''"));
    }

    @Test
    void aCandidateWithoutZooKeeperIsToldOfTheDatabaseBackend() {
        runner.run(context -> {
            assertThat(context).hasFailed();
            LeaseholdConfigurationException failure = configurationFailure(context.getStartupFailure());
            assertThat(failure.getMessage()).contains("needs ZooKeeper");
            assertThat(failure.action())
                    .contains("leasehold.zookeeper.connect-string")
                    .contains("or set leasehold.election.backend=jdbc to elect on the database");
        });
    }

    @Test
    void withoutCuratorTheDatabaseBackendRunsAndTheDefaultOneFailsNamingBothFixes() {
        ApplicationContextRunner withoutCurator =
                runner.withClassLoader(new FilteredClassLoader("org.apache.curator", "org.apache.zookeeper"));
        withoutCurator.withPropertyValues("leasehold.election.backend=jdbc").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(LeaseLeaderInitiator.class);
            assertThat(context).doesNotHaveBean(FencedLeaderInitiator.class);
            assertThat(context).getBean("leaseholdHealthIndicator").isInstanceOf(LeaseholdLeaseHealthIndicator.class);
        });
        withoutCurator.run(context -> {
            assertThat(context).hasFailed();
            LeaseholdConfigurationException failure = configurationFailure(context.getStartupFailure());
            assertThat(failure.getMessage()).contains("Curator is not on the class path");
            assertThat(failure.action())
                    .contains("curator-recipes")
                    .contains("or set leasehold.election.backend=jdbc to elect on the database");
        });
    }

    private static LeaseholdConfigurationException configurationFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof LeaseholdConfigurationException found) {
                return found;
            }
        }
        throw new AssertionError("no LeaseholdConfigurationException in " + failure, failure);
    }

    /** One candidate and an H2 data source; no ZooKeeper property. */
    @Configuration(proxyBeanMethods = false)
    static class Application {

        @Bean
        DataSource dataSource() {
            JdbcDataSource h2 = new JdbcDataSource();
            h2.setURL("jdbc:h2:mem:backend-choice-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
            return h2;
        }

        @Bean
        Candidate billing() {
            return new DefaultCandidate(null, "billing");
        }
    }
}
