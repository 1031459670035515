package dev.leasehold.spring.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;

/**
 * A leader's context closing leaves no ERROR line of Curator's: the initiator closes its selector before the leader's
 * work is interrupted, so Curator's selector does not queue again (a new lock node, created while the context closes)
 * and is not interrupted in that node's protected create, whose clean-up Curator could then not start on the closed
 * client ({@code ERROR FindAndDeleteProtectedNodeInBackground - Could not start guaranteed delete for node}).
 */
@Timeout(120)
class CuratorLogLinesTest {

    /** Each grant's context, told by the candidate. */
    private static final BlockingQueue<Context> GRANTS = new LinkedBlockingQueue<>();

    private static TestingServer zk;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LeaseholdZookeeperAutoConfiguration.class))
            .withUserConfiguration(Leader.class);

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zk = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 200, -1), true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zk.close();
    }

    @Test
    void aLeadersContextClosingLogsNoCuratorError() throws Exception {
        PrintStream stderr = System.err;
        ByteArrayOutputStream logged = new ByteArrayOutputStream();
        System.setErr(new PrintStream(logged, true, StandardCharsets.UTF_8)); // slf4j-simple writes to System.err
        try {
            for (int i = 0; i < 5; i++) { // each close raced Curator's requeue; before the fix most of them lost
                runner.withPropertyValues("leasehold.zookeeper.connect-string=" + zk.getConnectString())
                        .run(context -> {
                            Context granted = GRANTS.poll(30, TimeUnit.SECONDS);
                            assertThat(granted).as("the only candidate leads").isNotNull();
                        }); // closes the context: the initiator stops, then the client closes
                awaitZooKeeperEventThreads(); // Curator's callbacks (and their log lines) run there
            }
        } finally {
            System.setErr(stderr);
        }
        String text = logged.toString(StandardCharsets.UTF_8);
        stderr.print(text);
        assertThat(text).doesNotContain("Could not start guaranteed delete").doesNotContain(" ERROR ");
    }

    /** Waits until every ZooKeeper client's event thread ended: after a client's close, its last callbacks ran. */
    private static void awaitZooKeeperEventThreads() throws InterruptedException {
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().endsWith("-EventThread")) {
                thread.join(TimeUnit.SECONDS.toMillis(30));
                assertThat(thread.isAlive()).as("%s ended", thread.getName()).isFalse();
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Leader {
        @Bean
        Candidate leader() {
            return new DefaultCandidate("leader-1", "closing") {
                @Override
                public void onGranted(Context context) {
                    GRANTS.add(context);
                }
            };
        }
    }
}
