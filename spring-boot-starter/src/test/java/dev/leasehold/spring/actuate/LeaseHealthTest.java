package dev.leasehold.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.spring.lease.LeaseLeaderInitiator;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.h2.tools.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.DefaultCandidate;

/**
 * Issue 46, health and info on {@code leasehold.election.backend=jdbc}: before, the {@code leasehold} indicator was
 * the ZooKeeper one, {@code DOWN {"connected":false,"roles":{}}} on every replica (HTTP 503). Now, two replicas on one
 * database (H2 over TCP): the leader and the follower are UP, each role names the holder, its token, {@code
 * lease_until} and whether this instance leads; info shows the role, the leader and the token as on ZooKeeper. The
 * database stops answering: both are DOWN, with what the database said.
 */
@Timeout(120)
class LeaseHealthTest {

    @Test
    void leaderAndFollowerAreUpWhileTheDatabaseAnswersAndDownWhenItDoesNot() throws Exception {
        Server server = Server.createTcpServer("-tcpPort", "0", "-ifNotExists").start();
        String url = "jdbc:h2:tcp://localhost:" + server.getPort() + "/mem:lease-health;DB_CLOSE_DELAY=-1";
        try (ConfigurableApplicationContext a = start("a", url)) {
            LeaseLeaderInitiator initiatorA = a.getBean(LeaseLeaderInitiator.class);
            awaitLeading(initiatorA);
            long token = initiatorA.currentToken().orElseThrow();
            try (ConfigurableApplicationContext b = start("b", url)) {
                IndicatedHealthDescriptor leader = health(a);
                IndicatedHealthDescriptor follower = health(b);
                assertThat(leader.getStatus()).isEqualTo(Status.UP);
                assertThat(follower.getStatus()).as("a follower is UP").isEqualTo(Status.UP);
                assertThat(leader.getDetails()).containsEntry("backend", "jdbc");
                Map<String, Object> roleA = role(leader.getDetails());
                assertThat(roleA)
                        .containsEntry("participantId", "a")
                        .containsEntry("leading", true)
                        .containsEntry("holder", "a")
                        .containsEntry("token", token);
                assertThat(Instant.parse((String) roleA.get("lease_until"))).isAfter(Instant.EPOCH);
                Map<String, Object> roleB = role(follower.getDetails());
                assertThat(roleB)
                        .containsEntry("participantId", "b")
                        .containsEntry("leading", false)
                        .containsEntry("holder", "a")
                        .containsEntry("token", token)
                        .containsKey("lease_until");

                Info.Builder info = new Info.Builder();
                b.getBean("leaseholdInfoContributor", InfoContributor.class).contribute(info);
                @SuppressWarnings("unchecked")
                Map<String, Object> leasehold =
                        (Map<String, Object>) info.build().getDetails().get("leasehold");
                Map<String, Object> infoB = role(leasehold);
                assertThat(infoB)
                        .containsEntry("participantId", "b")
                        .containsEntry("leading", false)
                        .containsEntry("leader", Map.of("participantId", "a", "token", token));

                server.stop(); // the database stops answering
                assertThat(health(a).getStatus()).isEqualTo(Status.DOWN);
                IndicatedHealthDescriptor down = health(b);
                assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                assertThat(down.getDetails()).containsEntry("backend", "jdbc").containsKey("error");
            }
        } finally {
            server.stop();
        }
    }

    private static void awaitLeading(LeaseLeaderInitiator initiator) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!initiator.isLeader()) {
            assertThat(System.nanoTime()).as("a leads within 30 s").isLessThan(deadline);
            Thread.sleep(20); // polling the initiator's belief: there is no event to wait on from here
        }
    }

    private static IndicatedHealthDescriptor health(ConfigurableApplicationContext context) {
        return (IndicatedHealthDescriptor) context.getBean(HealthEndpoint.class).healthForPath("leasehold");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> role(Map<String, Object> details) {
        return (Map<String, Object>) ((Map<String, Object>) details.get("roles")).get("billing");
    }

    private static ConfigurableApplicationContext start(String instance, String url) {
        return new SpringApplicationBuilder(Replica.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "app.instance=" + instance,
                        "app.url=" + url,
                        "leasehold.election.backend=jdbc",
                        "leasehold.election.lease.lease-duration=4s",
                        "leasehold.election.lease.renew-deadline=3s",
                        "leasehold.election.lease.retry-period=100ms",
                        "management.endpoint.health.show-details=always",
                        "spring.main.banner-mode=off")
                .run();
    }

    /** A replica: one candidate naming its id, one data source, the starter and Actuator; no ZooKeeper. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Replica {

        @Bean
        DataSource dataSource(@Value("${app.url}") String url) {
            JdbcDataSource h2 = new JdbcDataSource();
            h2.setURL(url);
            return h2;
        }

        @Bean
        Candidate billing(@Value("${app.instance}") String instance) {
            return new DefaultCandidate(instance, "billing");
        }
    }
}
