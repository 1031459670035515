package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.recipes.LeaderInfo;
import dev.leasehold.spring.lease.LeaseLeaderInitiator;
import dev.leasehold.spring.lease.LeaseholdLeaseAutoConfiguration;
import dev.leasehold.spring.store.LeaseholdStoreAutoConfiguration;
import dev.leasehold.spring.zookeeper.FencedLeaderInitiator;
import dev.leasehold.spring.zookeeper.LeaseholdZookeeperAutoConfiguration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;

/**
 * The starter's participant ids: a candidate that names no id takes this instance's id (host, pid and a random part,
 * or {@code leasehold.election.participant-id}), unique per application context; a candidate's own id wins; on
 * ZooKeeper and on the database lease alike.
 */
class ParticipantIdTest {

    private static final String PID = String.valueOf(ProcessHandle.current().pid());

    /** The participant id of each grant, from the token the candidate was given. */
    private static final BlockingQueue<String> GRANTS = new LinkedBlockingQueue<>();

    private static TestingServer zk;

    private final ApplicationContextRunner zookeeper = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LeaseholdZookeeperAutoConfiguration.class))
            .withPropertyValues("leasehold.zookeeper.connect-string=" + zk.getConnectString());

    private final ApplicationContextRunner lease = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LeaseholdZookeeperAutoConfiguration.class,
                    LeaseholdStoreAutoConfiguration.class,
                    LeaseholdLeaseAutoConfiguration.class))
            .withUserConfiguration(H2.class)
            .withPropertyValues("leasehold.election.backend=jdbc");

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zk = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 200, -1), true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zk.close();
    }

    @BeforeEach
    void forgetOtherTestsGrants() {
        GRANTS.clear();
    }

    @Test
    void twoContextsInOneJvmTakePartWithTwoIdsOfHostPidAndARandomPart() {
        zookeeper
                .withUserConfiguration(NoId.class)
                .run(first -> zookeeper.withUserConfiguration(NoId.class).run(second -> {
                    FencedLeaderInitiator a = first.getBean(FencedLeaderInitiator.class);
                    FencedLeaderInitiator b = second.getBean(FencedLeaderInitiator.class);
                    assertThat(a.participantId()).matches(".+-" + PID + "-[0-9a-f]{8}");
                    assertThat(b.participantId()).matches(".+-" + PID + "-[0-9a-f]{8}");
                    assertThat(a.participantId()).isNotEqualTo(b.participantId());
                    // one of them leads, under its own id: in its token and in ZooKeeper's node
                    String granted = GRANTS.poll(30, TimeUnit.SECONDS);
                    assertThat(granted).isIn(a.participantId(), b.participantId());
                    LeaderInfo leader = a.currentLeader().orElseThrow();
                    assertThat(leader.participantId()).isEqualTo(granted);
                }));
    }

    @Test
    void aSpringIntegrationCandidateWithItsGeneratedUuidTakesTheInstanceId() {
        zookeeper.withUserConfiguration(GeneratedUuid.class).run(context -> {
            FencedLeaderInitiator initiator = context.getBean(FencedLeaderInitiator.class);
            assertThat(context.getBean(Candidate.class).getId()).matches("[0-9a-f-]{36}");
            assertThat(initiator.participantId()).matches(".+-" + PID + "-[0-9a-f]{8}");
        });
    }

    @Test
    void thePropertyOverridesTheDefaultAndACandidatesOwnIdWinsOverBoth() {
        zookeeper
                .withUserConfiguration(NoId.class, OwnId.class)
                .withPropertyValues("leasehold.election.participant-id=billing-blue")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("noId.fencedLeaderInitiator", FencedLeaderInitiator.class)
                                    .participantId())
                            .isEqualTo("billing-blue");
                    assertThat(context.getBean("ownId.fencedLeaderInitiator", FencedLeaderInitiator.class)
                                    .participantId())
                            .isEqualTo("instance-7");
                });
    }

    @Test
    void aParticipantIdOfMoreThan200CharactersFailsTheContextNamingTheProperty() {
        zookeeper
                .withUserConfiguration(NoId.class)
                .withPropertyValues("leasehold.election.participant-id=" + "b".repeat(201))
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(StarterConfigurationTest.messages(context.getStartupFailure()))
                            .anyMatch(m -> m.contains("leasehold.election.participant-id must be at most 200"
                                    + " characters, with no blanks at either end and no control characters"));
                });
    }

    @Test
    void twoCandidatesOfOneRoleThatWouldShareAnIdFailTheContextNamingBoth() {
        lease.withUserConfiguration(NoId.class, AlsoNoId.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(StarterConfigurationTest.messages(context.getStartupFailure()))
                    .anyMatch(m -> m.contains("both take part in role 'billing' as '")
                            && m.contains("'noId'")
                            && m.contains("'alsoNoId'"));
        });
    }

    @Test
    void theDatabaseLeaseTakesTheSameIdsTwoContextsTwoHoldersThePropertyOverrides() {
        lease.withUserConfiguration(NoId.class)
                .run(first -> lease.withUserConfiguration(NoId.class).run(second -> {
                    String a = first.getBean(LeaseLeaderInitiator.class).holder();
                    String b = second.getBean(LeaseLeaderInitiator.class).holder();
                    assertThat(a).matches(".+-" + PID + "-[0-9a-f]{8}");
                    assertThat(b).matches(".+-" + PID + "-[0-9a-f]{8}").isNotEqualTo(a);
                }));
        lease.withUserConfiguration(NoId.class, OwnId.class)
                .withPropertyValues("leasehold.election.participant-id=billing-green")
                .run(context -> {
                    assertThat(context.getBean("noId.leaseLeaderInitiator", LeaseLeaderInitiator.class)
                                    .holder())
                            .isEqualTo("billing-green");
                    assertThat(context.getBean("ownId.leaseLeaderInitiator", LeaseLeaderInitiator.class)
                                    .holder())
                            .isEqualTo("instance-7");
                });
    }

    /** A candidate that names no id: getId() is null. */
    private static Candidate noId(String role) {
        return new Candidate() {
            @Override
            public String getRole() {
                return role;
            }

            @Override
            public String getId() {
                return null;
            }

            @Override
            public void onGranted(Context context) {
                if (context instanceof FencedContext fenced) {
                    GRANTS.add(fenced.token().participantId());
                }
            }

            @Override
            public void onRevoked(Context context) {}
        };
    }

    @Configuration(proxyBeanMethods = false)
    static class NoId {
        @Bean
        Candidate noId() {
            return ParticipantIdTest.noId("billing");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class AlsoNoId {
        @Bean
        Candidate alsoNoId() {
            return ParticipantIdTest.noId("billing");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class GeneratedUuid {
        @Bean
        Candidate generated() {
            return new DefaultCandidate(null, "billing"); // Spring Integration fills in a random UUID
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnId {
        @Bean
        Candidate ownId() {
            return new DefaultCandidate("instance-7", "reports");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class H2 {
        @Bean
        DataSource dataSource() {
            JdbcDataSource dataSource = new JdbcDataSource();
            dataSource.setURL("jdbc:h2:mem:participant-ids;DB_CLOSE_DELAY=-1");
            return dataSource;
        }
    }
}
