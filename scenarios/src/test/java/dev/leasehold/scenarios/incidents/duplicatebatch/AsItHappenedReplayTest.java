package dev.leasehold.scenarios.incidents.duplicatebatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.scenarios.RunResult;
import dev.leasehold.scenarios.cli.Env;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The broken run of duplicate-batch is a replay on real timers: pod-B takes the lease only in the gaps pod-A's ticks
 * leave. In a CI run on a busy machine the timers ran late, pod-B missed every gap, and the run reported the incident
 * as not reproduced (no pod deleted another's lease), which said nothing of the code. Such a replay is now said and run
 * again.
 */
class AsItHappenedReplayTest {

    /**
     * pod-B's timer first fires a minute in, long after each replay ended: the machine whose timers run so late that
     * pod-B never tries, whatever this machine's own load (a pod-B firing inside pod-A's work could still, run late,
     * find a gap).
     */
    @Test
    void aReplayInWhichPodBNeverGotAGapIsSaidAndReplayedAtMostThreeTimes() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        RunResult result = asItHappened(bytes, 60_000);
        String printed = bytes.toString(StandardCharsets.UTF_8);

        assertThat(printed)
                .contains("pod-B never got a gap to take the lease while tick#1 ran; replaying (attempt 2 of 3)")
                .contains("replaying (attempt 3 of 3)")
                .doesNotContain("attempt 4")
                .doesNotContain("owner was pod-B");
        assertThat(printed.split("batches processed twice", -1))
                .as("verdicts printed once, for the last replay")
                .hasSize(2);
        assertThat(result.asExpected())
                .as("the incident was not played out, and the result says so")
                .isFalse();
        assertThat(result.verdicts()).contains("a pod deleted another pod's lease: no");
    }

    /** The story's own timing: the incident is played out, pod-A's late DEL removing pod-B's lease included. */
    @Test
    void theStorysTimingPlaysTheIncidentOut() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        RunResult result = asItHappened(bytes, DuplicateBatchScenario.POD_B_START_MS);
        String printed = bytes.toString(StandardCharsets.UTF_8);

        assertThat(result.asExpected()).as(printed).isTrue();
        assertThat(printed).contains("owner was pod-B");
        assertThat(result.verdicts()).contains("a pod deleted another pod's lease: yes");
    }

    private static RunResult asItHappened(ByteArrayOutputStream bytes, long podBStartMs) throws Exception {
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        try (Env env = Env.start(Env.Settings.embedded(out))) {
            return DuplicateBatchScenario.asItHappened(env, podBStartMs);
        }
    }
}
