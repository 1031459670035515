package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.store.claims.BatchClaim;
import dev.leasehold.store.claims.BatchClaims;
import dev.leasehold.store.claims.BatchState;
import dev.leasehold.store.slots.SlotClaim;
import dev.leasehold.store.slots.SlotRuns;
import dev.leasehold.store.slots.SlotState;
import dev.leasehold.store.testing.RecordingDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Retention (issue 10): purges delete old finished rows in chunks of {@code purgeChunk}, each its own statement,
 * and nothing that is still pending or running; a sweep takes at most {@code sweepLimit} slots. Small chunks keep
 * this fast: the chunking is what is tested, not the volume.
 */
@Timeout(60)
abstract class RetentionContract {

    protected abstract DataSource dataSource();

    private DataSource ds;

    @BeforeEach
    void cleanSchema() throws SQLException {
        ds = dataSource();
        FencedSchema.install(ds);
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("DELETE FROM leasehold_batches");
            s.execute("DELETE FROM leasehold_slot_runs");
        }
    }

    @Test
    void purgeFinishedDeletesOldDoneAndFailedBatchesInChunksAndNothingElse() throws SQLException {
        StoreConfig config = StoreConfig.defaults().withPurgeChunk(3).withMaxAttempts(1);
        BatchClaims batches = new BatchClaims(ds, config);
        List<String> old = new ArrayList<>();
        for (int i = 1; i <= 7; i++) {
            old.add("old-done-" + i);
        }
        old.addAll(List.of("old-failed-1", "old-failed-2"));
        for (String id : old) {
            batches.enqueue(id, "p");
            BatchClaim claim = batches.claimNext("w", Duration.ofSeconds(30)).orElseThrow();
            assertThat(id.contains("failed") ? batches.fail(claim, "no") : batches.finish(claim, "ok"))
                    .isTrue();
        }
        batches.enqueue("recent-done", "p");
        batches.finish(batches.claimNext("w", Duration.ofSeconds(30)).orElseThrow(), "ok");
        batches.enqueue("running", "p");
        batches.claimNext("w", Duration.ofSeconds(30)).orElseThrow();
        batches.enqueue("pending", "p");
        backdate("UPDATE leasehold_batches SET finished_at = ? WHERE id LIKE 'old-%'");
        RecordingDataSource recording = new RecordingDataSource(ds);

        long purged = new BatchClaims(recording, config).purgeFinished(Duration.ofDays(1));

        assertThat(purged).isEqualTo(9);
        assertThat(deletes(recording))
                .as("7 done in chunks of 3, then 2 failed")
                .isEqualTo(3 + 1);
        assertThat(old).allSatisfy(id -> assertThat(batches.state(id)).isEmpty());
        assertThat(batches.state("recent-done")).isPresent();
        assertThat(batches.state("running"))
                .get()
                .extracting(BatchState::status)
                .isEqualTo("processing");
        assertThat(batches.state("pending"))
                .get()
                .extracting(BatchState::status)
                .isEqualTo("pending");
        assertThat(batches.purgeFinished(Duration.ofDays(1))).isZero();
        batches.enqueue("old-done-1", "a purged id can be enqueued again");
    }

    @Test
    void slotPurgeDeletesOnlyOldDoneRunsInChunks() throws SQLException {
        StoreConfig config = StoreConfig.defaults().withPurgeChunk(2);
        SlotRuns slots = new SlotRuns(ds, config);
        Instant longAgo = Instant.now().minus(Duration.ofDays(3)).truncatedTo(ChronoUnit.MINUTES);
        for (int m = 0; m < 5; m++) {
            SlotClaim claim = slots.tryClaim("report", longAgo.plusSeconds(60L * m), "r", Duration.ofSeconds(30))
                    .orElseThrow();
            assertThat(slots.complete(claim, "ok")).isTrue();
        }
        Instant stillRunning = longAgo.plusSeconds(600);
        slots.tryClaim("report", stillRunning, "r", Duration.ofSeconds(30)).orElseThrow();
        Instant recent = Instant.now().truncatedTo(ChronoUnit.MINUTES);
        slots.complete(
                slots.tryClaim("report", recent, "r", Duration.ofSeconds(30)).orElseThrow(), "ok");
        RecordingDataSource recording = new RecordingDataSource(ds);

        long purged = new SlotRuns(recording, config).purge(Duration.ofDays(1));

        assertThat(purged).isEqualTo(5);
        assertThat(deletes(recording)).as("5 in chunks of 2").isEqualTo(3);
        assertThat(slots.state("report", longAgo)).isEmpty();
        assertThat(slots.state("report", stillRunning))
                .get()
                .extracting(SlotState::status)
                .isEqualTo("running");
        assertThat(slots.state("report", recent)).isPresent();
    }

    @Test
    void aSweepTakesAtMostItsLimitOldestSlotFirst() throws InterruptedException {
        SlotRuns slots = new SlotRuns(ds, StoreConfig.defaults().withSweepLimit(3));
        Instant base = Instant.parse("2026-11-29T03:00:00Z");
        for (int m = 0; m < 7; m++) {
            slots.tryClaim("report", base.plusSeconds(60L * m), "crashed", Duration.ofMillis(50))
                    .orElseThrow();
        }
        Thread.sleep(150); // stands for the crashed runners' silence, longer than their leases

        List<Instant> first = slots.sweep("report", "sweeper", Duration.ofMinutes(5)).stream()
                .map(SlotClaim::slot)
                .toList();
        int second = slots.sweep("report", "sweeper", Duration.ofMinutes(5)).size();
        int third = slots.sweep("report", "sweeper", Duration.ofMinutes(5)).size();

        assertThat(first).containsExactlyInAnyOrder(base, base.plusSeconds(60), base.plusSeconds(120));
        assertThat(second).isEqualTo(3);
        assertThat(third).isEqualTo(1);
        assertThat(slots.sweep("report", "sweeper", Duration.ofMinutes(5))).isEmpty();
    }

    private void backdate(String update) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement p = c.prepareStatement(update)) {
            p.setObject(1, OffsetDateTime.now(ZoneOffset.UTC).minusDays(2));
            p.executeUpdate();
        }
    }

    private static long deletes(RecordingDataSource recording) {
        // On PostgreSQL a statement of the store travels inside its own transaction block (BEGIN ...; DELETE ...;
        // COMMIT) in one round trip: count the round trips that carry a DELETE.
        return recording.recorded().stream()
                .filter(r -> r.sql().contains("DELETE FROM"))
                .count();
    }
}
