package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.spring.actuate.LeaseholdInfoContributor;
import dev.leasehold.spring.zookeeper.FencedLeaderInitiator;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.StaleTokenException;
import dev.leasehold.testkit.PatientPostgres;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The sample application, twice in one JVM on one ZooKeeper ({@link TestingServer}) and one database (H2, then
 * PostgreSQL 17): two
 * instances of a billing service elect a leader through the starter, and the leader bills through the
 * {@link FenceGate} with the token from its {@link FencedContext}.
 *
 * <p>Timeline: a starts and leads (token ta) and charges c1; b starts and follows; a's context closes while a charge
 * is in flight: a still leads until that charge is done and a's billing loop stopped, then a leaves the election; b leads with tb &gt; ta, fences the resource and charges c2; a write with ta
 * is refused; b's health endpoint shows b leading with tb. Each context has a {@link SimpleMeterRegistry}: a's
 * {@code leasehold.leader} gauge reads 1 while a leads, a's loss (closed) is counted, b's gauge reads 1 after the
 * handover, and b's {@code leasehold.fence.writes{outcome=stale}} counts the refused write.
 */
class BillingHandoverTest {

    private static TestingServer zk;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zk = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 200, -1), true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zk.close();
    }

    @Test
    void onH2ClosingTheLeadersContextHandsLeadershipToTheOtherWithAHigherTokenAndTheOldTokenIsRefused()
            throws Exception {
        handover("jdbc:h2:mem:billing-handover;DB_CLOSE_DELAY=-1");
    }

    @Test
    void onPostgresClosingTheLeadersContextHandsLeadershipToTheOtherWithAHigherTokenAndTheOldTokenIsRefused()
            throws Exception {
        if ("root".equals(System.getProperty("user.name"))) {
            throw new IllegalStateException("PostgreSQL refuses to run as root: run the build as an unprivileged user"
                    + " (.ci/run does that when started as root)");
        }
        try (EmbeddedPostgres postgres = PatientPostgres.builder().start()) {
            handover(postgres.getJdbcUrl("postgres", "postgres"));
        }
    }

    private void handover(String jdbcUrl) throws Exception {
        Timeline timeline = new Timeline();
        long tokenA;
        ConfigurableApplicationContext a = start("a", jdbcUrl, timeline);
        try {
            tokenA = tokenOf(timeline.await("a granted "));
            assertThat(timeline.await("a event OnGrantedEvent ")).isEqualTo("a event OnGrantedEvent " + tokenA);
            a.getBean(BillingCandidate.class).charge("c1");
            timeline.await("a charged c1");
            Gauge leaderA =
                    meter(a).get("leasehold.leader").tag("participant", "a").gauge();
            assertThat(leaderA.value()).isEqualTo(1.0);
            // a's meters leave a's registry when a's context closes: keep the counter to read it afterwards
            Counter lossesA = meter(a).get("leasehold.leadership.losses")
                    .tag("participant", "a")
                    .tag("cause", "closed")
                    .counter();

            try (ConfigurableApplicationContext second = start("b", jdbcUrl, timeline)) {
                FencedLeaderInitiator initiatorB = second.getBean(FencedLeaderInitiator.class);
                assertThat(initiatorB.isLeader()).isFalse();
                assertThat(initiatorB.currentLeader())
                        .get()
                        .extracting(l -> l.participantId())
                        .isEqualTo("a");
                assertThat(roleDetails(second)).containsEntry("leading", false);
                assertThat(meter(second)
                                .get("leasehold.leader")
                                .tag("participant", "b")
                                .gauge()
                                .value())
                        .isEqualTo(0.0);

                // a is mid-charge when its context closes: leadership must not move until that charge is done
                BillingCandidate candidateA = a.getBean(BillingCandidate.class);
                candidateA.charge(BillingCandidate.SLOW);
                timeline.await("a charging slow");
                CompletableFuture<Void> closingA = CompletableFuture.runAsync(a::close);
                timeline.await("a revoking " + tokenA);
                assertThat(initiatorB.currentLeader())
                        .get()
                        .extracting(l -> l.participantId())
                        .isEqualTo("a");
                assertThat(initiatorB.isLeader()).isFalse();
                candidateA.finishSlowCharge();
                closingA.get(20, TimeUnit.SECONDS);
                long tokenB = tokenOf(timeline.await("b granted "));
                assertThat(tokenB).isGreaterThan(tokenA);
                assertThat(lossesA.count()).isEqualTo(1.0);
                assertThat(leaderA.value()).isEqualTo(0.0);
                MeterRegistry metersB = meter(second);
                assertThat(metersB.get("leasehold.leader")
                                .tag("participant", "b")
                                .gauge()
                                .value())
                        .isEqualTo(1.0);
                assertThat(metersB.get("leasehold.leadership.grants")
                                .tag("participant", "b")
                                .counter()
                                .count())
                        .isEqualTo(1.0);
                List<String> entries = timeline.entries();
                assertThat(entries)
                        .containsSubsequence(
                                "a revoking " + tokenA,
                                "a charged slow with " + tokenA,
                                "a stopped billing " + tokenA,
                                "a event OnRevokedEvent " + tokenA,
                                "b granted " + tokenB);

                second.getBean(BillingCandidate.class).charge("c2");
                timeline.await("b charged c2");
                FenceGate gate = second.getBean(FenceGate.class);
                assertThatThrownBy(() -> gate.update(
                                BillingCandidate.RESOURCE,
                                tokenA,
                                "INSERT INTO charges (customer, instance, token) VALUES (?, ?, ?)",
                                "c3",
                                "a",
                                tokenA))
                        .isInstanceOf(StaleTokenException.class);
                assertThat(metersB.get("leasehold.fence.writes")
                                .tag("resource", BillingCandidate.RESOURCE)
                                .tag("outcome", "stale")
                                .counter()
                                .count())
                        .isEqualTo(1.0);
                assertThat(charges(second.getBean(DataSource.class)))
                        .containsExactly(
                                "c1 by a with " + tokenA, "c2 by b with " + tokenB, "slow by a with " + tokenA);

                IndicatedHealthDescriptor health = (IndicatedHealthDescriptor)
                        second.getBean(HealthEndpoint.class).healthForPath("leasehold");
                assertThat(health.getStatus()).isEqualTo(Status.UP);
                Map<String, Object> billing = roleDetails(second);
                assertThat(billing)
                        .containsEntry("participantId", "b")
                        .containsEntry("leading", true)
                        .containsEntry("token", tokenB);
                assertThat(billing.get("leader")).isEqualTo(Map.of("participantId", "b", "token", tokenB));

                Info.Builder info = new Info.Builder();
                second.getBean(LeaseholdInfoContributor.class).contribute(info);
                assertThat(info.build().getDetails().get("leasehold"))
                        .isEqualTo(Map.of(
                                "connected",
                                true,
                                "session",
                                Map.of("timeoutMs", 4000, "askedMs", 4000L),
                                "roles",
                                Map.of("billing", billing)));
            }
        } finally {
            a.close();
        }
    }

    private static MeterRegistry meter(ConfigurableApplicationContext context) {
        return context.getBean(MeterRegistry.class);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> roleDetails(ConfigurableApplicationContext context) {
        IndicatedHealthDescriptor health = (IndicatedHealthDescriptor)
                context.getBean(HealthEndpoint.class).healthForPath("leasehold");
        Map<String, Object> roles = (Map<String, Object>) health.getDetails().get("roles");
        return (Map<String, Object>) roles.get("billing");
    }

    private static ConfigurableApplicationContext start(String instance, String jdbcUrl, Timeline timeline) {
        return new SpringApplicationBuilder(BillingApplication.class)
                .web(WebApplicationType.NONE)
                .initializers(context -> {
                    context.getBeanFactory().registerSingleton("timeline", timeline);
                    context.getBeanFactory().registerSingleton("meterRegistry", new SimpleMeterRegistry());
                })
                .properties(
                        "billing.instance=" + instance,
                        "billing.jdbc-url=" + jdbcUrl,
                        "leasehold.zookeeper.connect-string=" + zk.getConnectString(),
                        "leasehold.zookeeper.session-timeout=4s",
                        "management.endpoints.web.exposure.include=health",
                        "management.endpoint.health.show-details=always",
                        "spring.main.banner-mode=off")
                .run();
    }

    private static long tokenOf(String entry) {
        return Long.parseLong(entry.substring(entry.lastIndexOf(' ') + 1));
    }

    private static List<String> charges(DataSource ds) throws Exception {
        try (Connection c = ds.getConnection();
                PreparedStatement s =
                        c.prepareStatement("SELECT customer, instance, token FROM charges ORDER BY customer");
                ResultSet rs = s.executeQuery()) {
            List<String> rows = new java.util.ArrayList<>();
            while (rs.next()) {
                rows.add(rs.getString(1) + " by " + rs.getString(2) + " with " + rs.getLong(3));
            }
            return rows;
        }
    }
}
