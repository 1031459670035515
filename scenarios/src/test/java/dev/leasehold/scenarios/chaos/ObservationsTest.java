package dev.leasehold.scenarios.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.testkit.HistoryChecker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What the campaign records of a participant's reports, in its own JVM and through a child JVM's pipe. */
class ObservationsTest {

    /** Rule 4 looks for an acknowledged write on its own resource: the acknowledgement must carry it. */
    @Test
    void anAcknowledgementCarriesItsElectionAndResourceThroughTheChildsPipe() {
        Observations observations = new Observations();
        observations.eventsOf("p-1", "partition-3").acknowledged("chaos-ledger-partition-3", 7, 2, 100, 110);

        ByteArrayOutputStream pipe = new ByteArrayOutputStream();
        ChaosChild.reporter(new PrintStream(pipe, true, StandardCharsets.UTF_8))
                .acknowledged("chaos-ledger-latch", 9, 1, 200, 230);
        String line = pipe.toString(StandardCharsets.UTF_8).strip();
        assertThat(ChaosChild.replay(line, observations.eventsOf("p-2", "latch")))
                .isTrue();

        assertThat(observations.snapshot().acks())
                .containsExactly(
                        new HistoryChecker.Ack("p-1", 7, 2, 100, 110, "partition-3", "chaos-ledger-partition-3"),
                        new HistoryChecker.Ack("p-2", 9, 1, 200, 230, "latch", "chaos-ledger-latch"));
    }

    /** The nemesis says what refused a released leader's late write: the fence, or which database error. */
    @Test
    void whatRefusedAParticipantsWritesIsKeptUntilAskedAndCarriedThroughThePipe() {
        Observations observations = new Observations();
        ByteArrayOutputStream pipe = new ByteArrayOutputStream();
        Member.Events child = ChaosChild.reporter(new PrintStream(pipe, true, StandardCharsets.UTF_8));
        child.databaseError("08006: An I/O error occurred while sending to the backend.");
        child.staleRejected(33);
        Member.Events events = observations.eventsOf("p-1", "latch");
        pipe.toString(StandardCharsets.UTF_8).lines().forEach(line -> ChaosChild.replay(line, events));

        assertThat(observations.refusalsOf("p-1"))
                .containsExactly(
                        "a database error, 08006: An I/O error occurred while sending to the backend.",
                        "the fence (StaleTokenException) with token 33");
        assertThat(observations.refusalsOf("p-1")).as("forgotten once asked").isEmpty();
        assertThat(observations.databaseErrors()).isEqualTo(1);
        assertThat(observations.staleRejected()).isEqualTo(1);
    }
}
