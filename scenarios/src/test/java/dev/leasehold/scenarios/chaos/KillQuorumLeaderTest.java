package dev.leasehold.scenarios.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.testkit.ChaosDatabase;
import dev.leasehold.testkit.Ensemble;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The nemesis's "kill quorum leader" while the servers have no leader (two of three down): it waits for them to elect
 * one and kills that, instead of injecting nothing. A campaign of {@code ChaosCampaignTest} once asked right after a
 * frozen server came back, found no leader, and ended with one fault fewer than its seed planned.
 */
@Timeout(120)
class KillQuorumLeaderTest {

    private static final String WAITING = "no quorum leader yet";

    @Test
    void waitsForTheServersToElectALeaderAndKillsIt() throws Exception {
        CountDownLatch waiting = new CountDownLatch(1);
        StringBuffer said = new StringBuffer();
        PrintStream out = new PrintStream(
                new OutputStream() {
                    @Override
                    public void write(int b) {
                        said.append((char) b);
                        if (said.indexOf(WAITING) >= 0) {
                            waiting.countDown();
                        }
                    }
                },
                true,
                StandardCharsets.UTF_8);
        try (ChaosDatabase h2 = ChaosDatabase.h2();
                Ensemble ensemble = Ensemble.start(3, 200)) {
            Nemesis nemesis = new Nemesis(ChaosCampaign.Config.of(Duration.ofMillis(1), 1L, 2, h2, out));
            nemesis.attach(ensemble, List.of(), null, 10_000); // waits up to two of these sessions
            List<InstanceSpec> down = ensemble.instances().subList(0, 2);
            for (InstanceSpec spec : down) {
                ensemble.kill(spec); // the one left is no quorum: no server is the leader
            }
            CompletableFuture<Void> fault = CompletableFuture.runAsync(() -> {
                try {
                    nemesis.inject(Fault.KILL_QUORUM_LEADER);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(waiting.await(30, TimeUnit.SECONDS))
                    .as("the nemesis said it waits for a leader: %s", said)
                    .isTrue();
            for (InstanceSpec spec : down) {
                ensemble.restart(spec);
            }
            fault.get(60, TimeUnit.SECONDS);
            assertThat(nemesis.mix()).as(said.toString()).isEqualTo("kill quorum leader 1");
            assertThat(said.toString()).contains("kill the quorum leader, server ");
        }
    }
}
