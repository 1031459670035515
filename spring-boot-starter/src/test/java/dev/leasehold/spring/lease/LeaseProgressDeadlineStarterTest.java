package dev.leasehold.spring.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.spring.LeaseContext;
import dev.leasehold.spring.StuckCandidate;
import dev.leasehold.spring.Timeline;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.lease.LeaseListener;
import dev.leasehold.store.lease.LeaseLoss;
import dev.leasehold.store.lease.LeaseTiming;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.integration.leader.DefaultCandidate;

/**
 * Issue 27 in the starter with {@code leasehold.election.backend=jdbc}: {@code leasehold.election.progress-deadline}
 * and {@link LeaseContext#progress()}, as for the ZooKeeper initiators ({@link ProgressDeadlineStarterTest}).
 */
@Timeout(120)
class LeaseProgressDeadlineStarterTest {

    /** A 60 s lease: a follower that leads during the test leads because the stuck leader released the lease. */
    private static final LeaseTiming TIMING =
            new LeaseTiming(Duration.ofSeconds(60), Duration.ofSeconds(20), Duration.ofMillis(100));

    @Test
    void aCandidateThatMakesNoProgressIsRevokedAsStalledAndAnotherInstanceLeads() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:lease-progress-starter;DB_CLOSE_DELAY=-1");
        FencedSchema.install(h2);
        StuckCandidate<LeaseContext, LeaseLoss> a = new StuckCandidate<>("a", "billing-progress", LeaseContext.class);
        LeaseLeaderInitiator initiatorA = new LeaseLeaderInitiator(h2, a, TIMING, StoreConfig.defaults());
        initiatorA.setProgressDeadline(Duration.ofMillis(500));
        initiatorA.addListener(new LeaseListener() {
            @Override
            public void acquired(long token) {}

            @Override
            public void lost(long token, LeaseLoss cause) {
                a.lost(cause);
            }
        });
        StuckCandidate<LeaseContext, LeaseLoss> b = new StuckCandidate<>("b", "billing-progress", LeaseContext.class);
        LeaseLeaderInitiator initiatorB = new LeaseLeaderInitiator(h2, b, TIMING, StoreConfig.defaults());
        initiatorA.start();
        try {
            LeaseContext first = StuckCandidate.next(a.granted);
            first.progress(); // once: the deadline counts from here, and nothing comes after
            assertThat(initiatorA.sinceProgress()).isPresent();
            initiatorB.start();
            assertThat(StuckCandidate.next(a.revoked)).isSameAs(first);
            assertThat(StuckCandidate.next(a.causes)).isEqualTo(LeaseLoss.STALLED);
            LeaseContext second = StuckCandidate.next(b.granted);
            assertThat(second.token()).isGreaterThan(first.token());
            assertThat(first.isLeader()).isFalse();
            first.progress(); // an ended grant's progress() is ignored
            assertThat(second.isLeader()).isTrue();
            assertThat(initiatorA.sinceProgress()).isEmpty();
        } finally {
            initiatorB.stop();
            initiatorA.stop();
        }
    }

    @Test
    void theDeadlineIsBoundFromThePropertyAndABadOneFailsTheContext() {
        try (ConfigurableApplicationContext context = start("leasehold.election.progress-deadline=45s")) {
            LeaseLeaderInitiator initiator = context.getBean(LeaseLeaderInitiator.class);
            assertThat(initiator.progressDeadline()).contains(Duration.ofSeconds(45));
            assertThat(context.getBean(SimpleMeterRegistry.class)
                            .find("leasehold.leadership.progress.age")
                            .tag("participant", "p")
                            .timeGauge())
                    .as("the progress age gauge, as for the ZooKeeper initiators")
                    .isNotNull();
        }
        try (ConfigurableApplicationContext context = start("app.unused=1")) {
            assertThat(context.getBean(LeaseLeaderInitiator.class).progressDeadline())
                    .isEmpty();
        }
        assertThatThrownBy(() -> start("leasehold.election.progress-deadline=0s"))
                .hasStackTraceContaining("leasehold.election.progress-deadline");
        assertThatThrownBy(() -> new LeaseLeaderInitiator(
                                new JdbcDataSource(), new DefaultCandidate("x", "r"), TIMING, StoreConfig.defaults())
                        .setProgressDeadline(Duration.ofMillis(-5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("progressDeadline must be more than 0");
    }

    private static ConfigurableApplicationContext start(String property) {
        return new SpringApplicationBuilder(LeaseBackendTest.LeaseApplication.class)
                .web(WebApplicationType.NONE)
                .initializers(context -> {
                    context.getBeanFactory().registerSingleton("timeline", new Timeline());
                    context.getBeanFactory().registerSingleton("stopping", new CountDownLatch(0));
                    context.getBeanFactory().registerSingleton("meterRegistry", new SimpleMeterRegistry());
                })
                .properties(
                        "app.instance=p",
                        "leasehold.election.backend=jdbc",
                        "leasehold.election.lease.lease-duration=60s",
                        "leasehold.election.lease.renew-deadline=20s",
                        "leasehold.election.lease.retry-period=100ms",
                        "spring.main.banner-mode=off",
                        property)
                .run();
    }
}
