package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.store.FenceGate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.curator.test.TestingServer;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
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
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.OnGrantedEvent;

/**
 * Issue 46, one context type: the {@code Candidate} of docs/spring-boot.md casts its context to {@link FencedContext}
 * and fences with {@code token().value()}, on ZooKeeper and on the database lease alike. Before, on the database lease
 * the cast threw {@code ClassCastException: LeaseLeaderInitiator$Grant cannot be cast to FencedContext}, the grant was
 * given up and taken again at once (28 grants in 22 s, 4 to 8 ms apart). And an {@code onGranted} that throws backs
 * off, on both backends, 1 s and then 2 s before the next {@code onGranted}.
 */
@Timeout(120)
class OneContextTypeTest {

    /** Where the candidates elect. */
    enum Backend {
        ZOOKEEPER,
        JDBC
    }

    private static TestingServer zk;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zk = new TestingServer(true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zk.close();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void theDocsCandidateCastsToFencedContextAndFencesOnEitherBackend(Backend backend) throws Exception {
        BlockingQueue<Long> loops = new LinkedBlockingQueue<>();
        BlockingQueue<Long> events = new LinkedBlockingQueue<>();
        try (ConfigurableApplicationContext context = start(DocsApplication.class, backend, loops, events)) {
            Long token = loops.poll(30, TimeUnit.SECONDS);
            assertThat(token).as("the docs' onGranted ran to its loop").isNotNull();
            assertThat(events.poll(30, TimeUnit.SECONDS))
                    .as("FencedContext.of(OnGrantedEvent)")
                    .isEqualTo(token);
            FenceGate gate = context.getBean(FenceGate.class);
            gate.write("billing-2026-11", token, tx -> {}); // the mark onGranted advanced: accepted
            assertThat(loops.poll(1500, TimeUnit.MILLISECONDS))
                    .as("no second grant: the first was kept")
                    .isNull();
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void anOnGrantedThatThrowsBacksOffOneSecondThenTwoOnEitherBackend(Backend backend) throws Exception {
        BlockingQueue<Long> calls = new LinkedBlockingQueue<>();
        try (ConfigurableApplicationContext context =
                start(ThrowingApplication.class, backend, calls, new LinkedBlockingQueue<>())) {
            List<Long> at = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Long nanos = calls.poll(30, TimeUnit.SECONDS);
                assertThat(nanos).as("onGranted call " + (i + 1)).isNotNull();
                at.add(nanos);
            }
            long first = TimeUnit.NANOSECONDS.toMillis(at.get(1) - at.get(0));
            long second = TimeUnit.NANOSECONDS.toMillis(at.get(2) - at.get(1));
            assertThat(first).as("ms between the 1st and 2nd onGranted").isGreaterThanOrEqualTo(950);
            assertThat(second).as("ms between the 2nd and 3rd onGranted").isGreaterThanOrEqualTo(1950);
            assertThat(context.isActive()).isTrue();
        }
    }

    private static ConfigurableApplicationContext start(
            Class<?> application, Backend backend, BlockingQueue<Long> loops, BlockingQueue<Long> events) {
        String role = "billing-" + UUID.randomUUID();
        return new SpringApplicationBuilder(application)
                .web(WebApplicationType.NONE)
                .initializers(context -> {
                    context.getBeanFactory().registerSingleton("loops", loops);
                    context.getBeanFactory().registerSingleton("events", events);
                })
                .properties(
                        "app.role=" + role,
                        "app.url=jdbc:h2:mem:" + role + ";DB_CLOSE_DELAY=-1",
                        "leasehold.election.backend=" + backend.name().toLowerCase(java.util.Locale.ROOT),
                        "leasehold.zookeeper.connect-string=" + zk.getConnectString(),
                        "leasehold.election.lease.retry-period=100ms",
                        "spring.main.banner-mode=off")
                .run();
    }

    private static DataSource h2(String url) {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL(url);
        return h2;
    }

    /** The snippet of docs/spring-boot.md, as it is written there. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class DocsApplication {

        @Bean
        DataSource dataSource(@Value("${app.url}") String url) {
            return h2(url);
        }

        @Bean
        Candidate billing(FenceGate gate, @Value("${app.role}") String role, BlockingQueue<Long> loops) {
            return new DefaultCandidate(null, role) {
                @Override
                public void onGranted(Context context) {
                    long token = ((FencedContext) context).token().value();
                    gate.advance("billing-2026-11", token); // fence first
                    loops.add(token); // startBillingLoop(token)
                }

                @Override
                public void onRevoked(Context context) {}
            };
        }

        @Bean
        ApplicationListener<OnGrantedEvent> granted(BlockingQueue<Long> events) {
            return event -> events.add(FencedContext.of(event).token().value());
        }
    }

    /** A candidate whose onGranted always throws: the time of each call. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ThrowingApplication {

        @Bean
        DataSource dataSource(@Value("${app.url}") String url) {
            return h2(url);
        }

        @Bean
        Candidate billing(@Value("${app.role}") String role, BlockingQueue<Long> loops) {
            return new DefaultCandidate(null, role) {
                @Override
                public void onGranted(Context context) {
                    loops.add(System.nanoTime());
                    throw new IllegalStateException("the billing loop cannot start");
                }

                @Override
                public void onRevoked(Context context) {}
            };
        }
    }
}
