package dev.leasehold.spring.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.spring.LeaseContext;
import dev.leasehold.spring.Timeline;
import dev.leasehold.spring.zookeeper.FencedLeaderInitiator;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.StaleTokenException;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.AbstractLeaderEvent;

/**
 * {@code leasehold.election.backend=jdbc}: two instances of an application elect a leader on their shared database
 * (H2), with no ZooKeeper anywhere. Timeline: a leads with ta; b follows; a's context closes while a's onRevoked is
 * still stopping the work: the lease still names a; then b leads with tb &gt; ta (the release, not the 60 s lease,
 * let it in), and a write with ta is refused at the gate. a's {@code leasehold.leader} gauge reads 1, then 0; b counts
 * one grant.
 */
@Timeout(120)
class LeaseBackendTest {

    private static final String URL = "jdbc:h2:mem:lease-backend;DB_CLOSE_DELAY=-1";

    @Test
    void twoInstancesElectOnTheirDatabaseWithoutZooKeeperAndTheOldTokenIsRefused() throws Exception {
        Timeline timeline = new Timeline();
        CountDownLatch stopping = new CountDownLatch(1);
        ConfigurableApplicationContext a = start("a", timeline, stopping);
        try {
            long tokenA = tokenOf(timeline.await("a granted "));
            assertThat(timeline.await("a event OnGrantedEvent ")).isEqualTo("a event OnGrantedEvent " + tokenA);
            assertThat(a.getBean(LeaseLeaderInitiator.class).isLeader()).isTrue();
            Gauge leaderA = a.getBean(MeterRegistry.class)
                    .get("leasehold.leader")
                    .tags("election", "billing", "participant", "a")
                    .gauge();
            assertThat(leaderA.value()).isEqualTo(1.0);
            assertThat(a.getBeansOfType(FencedLeaderInitiator.class)).isEmpty();
            try (ConfigurableApplicationContext b = start("b", timeline, new CountDownLatch(0))) {
                LeaseLeaderInitiator initiatorB = b.getBean(LeaseLeaderInitiator.class);
                assertThat(initiatorB.isLeader()).isFalse();
                assertThat(initiatorB.currentLeader().orElseThrow().holder()).isEqualTo("a");

                CompletableFuture<Void> closingA = CompletableFuture.runAsync(a::close);
                timeline.await("a revoking " + tokenA);
                assertThat(initiatorB.currentLeader().orElseThrow().holder())
                        .as("not released while onRevoked runs")
                        .isEqualTo("a");
                stopping.countDown();
                closingA.get(30, TimeUnit.SECONDS);
                long tokenB = tokenOf(timeline.await("b granted "));
                assertThat(tokenB).isGreaterThan(tokenA);
                // 0 once A stopped leading; NaN once A's closed context was collected (a gauge holds its state weakly)
                assertThat(leaderA.value()).satisfiesAnyOf(v -> assertThat(v).isZero(), v -> assertThat(v)
                        .isNaN());
                assertThat(b.getBean(MeterRegistry.class)
                                .get("leasehold.leadership.grants")
                                .tag("participant", "b")
                                .counter()
                                .count())
                        .isEqualTo(1.0);
                assertThat(timeline.entries())
                        .containsSubsequence(
                                "a revoking " + tokenA,
                                "a revoked " + tokenA,
                                "a event OnRevokedEvent " + tokenA,
                                "b granted " + tokenB);

                FenceGate gate = b.getBean(FenceGate.class);
                gate.advance("billing", tokenB);
                assertThatThrownBy(() -> gate.write("billing", tokenA, tx -> {}))
                        .isInstanceOf(StaleTokenException.class);
            }
        } finally {
            a.close();
        }
    }

    @Test
    void aTimingThatBreaksClientGosRulesFailsTheContextNamingTheProperty() {
        assertThatThrownBy(() -> new SpringApplicationBuilder(LeaseApplication.class)
                        .web(WebApplicationType.NONE)
                        .initializers(context -> {
                            context.getBeanFactory().registerSingleton("timeline", new Timeline());
                            context.getBeanFactory().registerSingleton("stopping", new CountDownLatch(0));
                        })
                        .properties(
                                "app.instance=x",
                                "leasehold.election.backend=jdbc",
                                "leasehold.election.lease.lease-duration=5s",
                                "leasehold.election.lease.renew-deadline=5s",
                                "spring.main.banner-mode=off")
                        .run())
                .hasStackTraceContaining("leasehold.election.lease: leaseDuration must be greater than renewDeadline");
    }

    private static ConfigurableApplicationContext start(String instance, Timeline timeline, CountDownLatch stopping) {
        return new SpringApplicationBuilder(LeaseApplication.class)
                .web(WebApplicationType.NONE)
                .initializers(context -> {
                    context.getBeanFactory().registerSingleton("timeline", timeline);
                    context.getBeanFactory().registerSingleton("stopping", stopping);
                    context.getBeanFactory().registerSingleton("meterRegistry", new SimpleMeterRegistry());
                })
                .properties(
                        "app.instance=" + instance,
                        "leasehold.election.backend=jdbc",
                        "leasehold.election.lease.lease-duration=60s",
                        "leasehold.election.lease.renew-deadline=20s",
                        "leasehold.election.lease.retry-period=100ms",
                        "spring.main.banner-mode=off")
                .run();
    }

    private static long tokenOf(String entry) {
        return Long.parseLong(entry.substring(entry.lastIndexOf(' ') + 1));
    }

    /** The application: one candidate, one H2 data source, the starter; no ZooKeeper property. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class LeaseApplication {

        @Bean
        DataSource dataSource() {
            JdbcDataSource h2 = new JdbcDataSource();
            h2.setURL(URL);
            return h2;
        }

        @Bean
        Candidate candidate(@Value("${app.instance}") String instance, Timeline timeline, CountDownLatch stopping) {
            return new Candidate() {
                @Override
                public String getRole() {
                    return "billing";
                }

                @Override
                public String getId() {
                    return instance;
                }

                @Override
                public void onGranted(Context context) {
                    timeline.add(instance + " granted "
                            + ((LeaseContext) context).token().value());
                }

                @Override
                public void onRevoked(Context context) {
                    long token = ((LeaseContext) context).token().value();
                    timeline.add(instance + " revoking " + token);
                    try {
                        stopping.await(); // the leader's work stopping
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    timeline.add(instance + " revoked " + token);
                }
            };
        }

        @Bean
        ApplicationListener<AbstractLeaderEvent> leaderEvents(
                @Value("${app.instance}") String instance, Timeline timeline) {
            return event -> timeline.add(instance + " event " + event.getClass().getSimpleName() + " "
                    + LeaseContext.of(event).token().value());
        }
    }
}
