package dev.leasehold.spring.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.spring.LeaseholdConfigurationException;
import dev.leasehold.spring.actuate.LeaseholdHealthIndicator;
import dev.leasehold.spring.actuate.LeaseholdInfoContributor;
import java.net.ServerSocket;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;

/**
 * A wrong ZooKeeper address, as a new user met it: the context must not start as if all were well. Before the fix the
 * context started, readiness was ACCEPTING_TRAFFIC and "joined the election" was logged though never connected.
 */
@Timeout(120)
class ZookeeperStartupTest {

    private static final BlockingQueue<Context> GRANTS = new LinkedBlockingQueue<>();

    /** Each test counts its own context's grants: another test's (closed) context may have been granted before. */
    @BeforeEach
    void forgetEarlierGrants() {
        GRANTS.clear();
    }

    /** A minimal application: one candidate, the starter, nothing else. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class OneCandidate {
        @Bean
        DefaultCandidate candidate() {
            return new DefaultCandidate("c1", "billing") {
                @Override
                public void onGranted(Context context) {
                    GRANTS.add(context);
                }
            };
        }
    }

    private static int unusedPort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static SpringApplicationBuilder app(String connectString, String... more) {
        return new SpringApplicationBuilder(OneCandidate.class)
                .web(WebApplicationType.NONE)
                .properties("leasehold.zookeeper.connect-string=" + connectString, "spring.main.banner-mode=off")
                .properties(more);
    }

    @Test
    void aWrongAddressFailsTheStartWithOneMessageNamingIt() throws Exception {
        String address = "127.0.0.1:" + unusedPort();

        assertThatThrownBy(() -> app(address, "leasehold.zookeeper.startup-connect-timeout=1s")
                        .run()
                        .close())
                .hasRootCauseInstanceOf(LeaseholdConfigurationException.class)
                .rootCause()
                .hasMessageContaining("Could not connect to ZooKeeper at " + address + " within 1000 ms");
    }

    @Test
    void startedDisconnectedItRefusesTrafficUntilZooKeeperAnswers() throws Exception {
        int port = unusedPort();
        BlockingQueue<Object> readiness = new LinkedBlockingQueue<>();
        try (TestingServer zk = new TestingServer(port, false);
                ConfigurableApplicationContext context = app(
                                "127.0.0.1:" + port,
                                "leasehold.zookeeper.startup-connect-timeout=500ms",
                                "leasehold.zookeeper.start-disconnected=true",
                                "leasehold.zookeeper.session-timeout=4s",
                                "leasehold.election.close-wait=2s")
                        .listeners(event -> {
                            if (event instanceof AvailabilityChangeEvent<?> change
                                    && change.getState() instanceof ReadinessState) {
                                readiness.add(change.getState());
                            }
                        })
                        .run()) {
            // Spring Boot says ACCEPTING_TRAFFIC at the end of the start; the starter answers it (events, in order: the
            // availability bean may record one just after this test's listener saw it)
            assertThat(readiness.poll(20, TimeUnit.SECONDS)).isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
            assertThat(readiness.poll(20, TimeUnit.SECONDS))
                    .as("readiness while ZooKeeper never answered")
                    .isEqualTo(ReadinessState.REFUSING_TRAFFIC);
            assertThat(context.getBean(ZookeeperReadiness.class).connected()).isFalse();
            assertThat(GRANTS).isEmpty();

            zk.start();

            Object next = readiness.poll(30, TimeUnit.SECONDS);
            while (next == ReadinessState.REFUSING_TRAFFIC) { // Curator may still say LOST for the never-made session
                next = readiness.poll(30, TimeUnit.SECONDS);
            }
            assertThat(next)
                    .as("readiness once ZooKeeper at %s answers", zk.getConnectString())
                    .isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
            assertThat(GRANTS.poll(20, TimeUnit.SECONDS))
                    .as("a grant once connected")
                    .isNotNull();
        }
    }

    /**
     * Issue 29, item 2: a new user asked for 60 s and was replaced after about 37 s, because the server cut the
     * session to its maximum (20 ticks). The info and the health say what the server negotiated, beside the ask.
     */
    @Test
    void infoAndHealthShowTheSessionTimeoutTheServerNegotiated() throws Exception {
        // tickTime 200 ms: the server grants 400 to 4,000 ms, whatever is asked
        try (TestingServer zk = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 200, -1), true);
                ConfigurableApplicationContext context = app(
                                zk.getConnectString(),
                                "leasehold.zookeeper.session-timeout=60s",
                                "leasehold.election.close-wait=2s")
                        .run()) {
            Map<String, Object> expected = Map.of(
                    "timeoutMs",
                    4000,
                    "askedMs",
                    60000L,
                    "note",
                    "the server bounds the session timeout to 2 to 20 of its ticks (tickTime); failover follows 4000"
                            + " ms");
            Info.Builder info = new Info.Builder();
            context.getBean(LeaseholdInfoContributor.class).contribute(info);
            @SuppressWarnings("unchecked")
            Map<String, Object> leasehold =
                    (Map<String, Object>) info.build().getDetails().get("leasehold");
            assertThat(leasehold).containsEntry("session", expected);
            assertThat(context.getBean(LeaseholdHealthIndicator.class).health().getDetails())
                    .containsEntry("session", expected);
        }
    }
}
