package dev.leasehold.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StaleTokenException;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.claims.BatchClaim;
import dev.leasehold.store.claims.BatchClaims;
import dev.leasehold.store.slots.SlotClaim;
import dev.leasehold.store.slots.SlotRuns;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The store meters against a real database: each outcome moves its own counter, the batch gauges follow refresh. */
abstract class StoreMetersContract {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private StoreConfig config;
    private DataSource ds;

    /** A fresh, empty database for each test. */
    protected abstract DataSource freshDatabase();

    @BeforeEach
    void install() {
        ds = freshDatabase();
        config = new StoreMeters(registry).on(StoreConfig.defaults());
        FencedSchema.install(ds, config);
    }

    private double count(String name, String... tags) {
        var search = registry.find(name).tags(tags);
        return search.counter() == null ? 0 : search.counter().count();
    }

    @Test
    void aStaleWriteIncrementsTheStaleCounterOfItsResource() {
        FenceGate gate = new FenceGate(ds, config);
        gate.advance("ledger", 10);
        gate.write("ledger", 10, tx -> {});
        assertThat(count("leasehold.fence.writes", "resource", "ledger", "outcome", "stale"))
                .isZero();

        assertThatThrownBy(() -> gate.write("ledger", 9, tx -> {})).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> gate.advance("ledger", 3)).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> gate.update("ledger", 11, "UPDATE no_such_table SET x = 1"))
                .isInstanceOf(RuntimeException.class);

        assertThat(count("leasehold.fence.writes", "resource", "ledger", "outcome", "accepted"))
                .isEqualTo(2.0);
        assertThat(count("leasehold.fence.writes", "resource", "ledger", "outcome", "stale"))
                .isEqualTo(2.0);
        assertThat(count("leasehold.fence.writes", "resource", "ledger", "outcome", "failed"))
                .isEqualTo(1.0);
        assertThat(count("leasehold.fence.writes", "resource", "other")).isZero();
    }

    @Test
    void claimsAreCountedByOutcomeAndTheGaugesFollowRefresh() {
        BatchClaims claims = new BatchClaims(ds, config);
        BatchMeters gauges = new BatchMeters(registry, claims);
        assertThat(registry.get("leasehold.batches")
                        .tag("status", "pending")
                        .gauge()
                        .value())
                .isNaN();
        for (int i = 1; i <= 4; i++) {
            claims.enqueue("b" + i, "payload");
        }
        BatchClaim first = claims.claimNext("w1", Duration.ofMinutes(5)).orElseThrow();
        List<BatchClaim> two = claims.claimUpTo("w1", Duration.ofMinutes(5), 2);
        assertThat(claims.finish(first, "ok")).isTrue();
        assertThat(claims.finish(first, "twice")).isFalse();
        assertThat(claims.renew(first, Duration.ofMinutes(5))).isFalse();
        assertThat(claims.fail(two.get(0), "boom")).isTrue();

        assertThat(count("leasehold.claims", "outcome", "claimed")).isEqualTo(3.0);
        assertThat(count("leasehold.claims", "outcome", "finished")).isEqualTo(1.0);
        assertThat(count("leasehold.claims", "outcome", "lost_on_finish")).isEqualTo(1.0);
        assertThat(count("leasehold.claims", "outcome", "lost_on_renew")).isEqualTo(1.0);
        assertThat(count("leasehold.claims", "outcome", "attempt_failed")).isEqualTo(1.0);

        gauges.refresh();
        assertThat(registry.get("leasehold.batches")
                        .tag("status", "pending")
                        .gauge()
                        .value())
                .isEqualTo(2.0);
        assertThat(registry.get("leasehold.batches")
                        .tag("status", "processing")
                        .gauge()
                        .value())
                .isEqualTo(1.0);
        assertThat(registry.get("leasehold.batches")
                        .tag("status", "done")
                        .gauge()
                        .value())
                .isEqualTo(1.0);
        assertThat(registry.get("leasehold.batches.oldest.pending").timeGauge().value(TimeUnit.SECONDS))
                .isGreaterThanOrEqualTo(0.0);

        while (claims.claimNext("w2", Duration.ofMinutes(5)).isPresent()) {
            // take all that is left
        }
        assertThat(count("leasehold.claims", "outcome", "empty")).isEqualTo(1.0);
        gauges.refresh();
        assertThat(registry.get("leasehold.batches")
                        .tag("status", "pending")
                        .gauge()
                        .value())
                .isZero();
        assertThat(registry.get("leasehold.batches.oldest.pending").timeGauge().value(TimeUnit.SECONDS))
                .isZero();
    }

    @Test
    void slotsAreCountedWonLostTakenOverAndLateCompleteRejected() {
        SlotRuns slots = new SlotRuns(ds, config);
        Instant slot = Instant.parse("2026-11-30T10:00:00Z");
        SlotClaim slow =
                slots.tryClaim("report", slot, "r1", Duration.ofMillis(1)).orElseThrow();
        assertThat(slots.tryClaim("report", slot, "r2", Duration.ofMinutes(1))).isEmpty();
        List<SlotClaim> taken = List.of();
        while (taken.isEmpty()) { // the 1 ms lease ends on the database clock; sweep until it has
            taken = slots.sweep("report", "r2", Duration.ofMinutes(1));
        }
        assertThat(slots.complete(slow, "late")).isFalse();
        assertThat(slots.complete(taken.get(0), "ok")).isTrue();

        assertThat(count("leasehold.slots", "job", "report", "outcome", "won")).isEqualTo(1.0);
        assertThat(count("leasehold.slots", "job", "report", "outcome", "lost_race"))
                .isEqualTo(1.0);
        assertThat(count("leasehold.slots", "job", "report", "outcome", "taken_over"))
                .isEqualTo(1.0);
        assertThat(count("leasehold.slots", "job", "report", "outcome", "late_complete_rejected"))
                .isEqualTo(1.0);
        assertThat(count("leasehold.slots", "job", "report", "outcome", "completed"))
                .isEqualTo(1.0);
    }
}
