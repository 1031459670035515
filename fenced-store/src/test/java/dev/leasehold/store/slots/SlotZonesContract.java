package dev.leasehold.store.slots;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Slots in the user's time zone (issue 10): local midnights, +05:30, 23- and 25-hour days, off-grid claims. */
@Timeout(60)
abstract class SlotZonesContract {

    static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    static final ZoneId KOLKATA = ZoneId.of("Asia/Kolkata");
    static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    static final Duration DAY = Duration.ofDays(1);
    static final Duration HOUR = Duration.ofHours(1);
    static final Duration LEASE = Duration.ofSeconds(30);

    protected abstract DataSource dataSource();

    private SlotRuns slots;

    @BeforeEach
    void cleanSchema() throws SQLException {
        DataSource ds = dataSource();
        FencedSchema.install(ds);
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("DELETE FROM leasehold_slot_runs");
        }
        slots = new SlotRuns(ds);
    }

    /** Berlin: clocks go forward on 2026-03-29 (a 23-hour day) and back on 2026-10-25 (a 25-hour day). */
    @Test
    void aDailyJobInBerlinRunsAtEveryLocalMidnightAcrossBothClockChanges() {
        Instant from = Instant.parse("2026-03-27T23:00:00Z");
        List<Instant> march = slots.missingSlots("daily", from, Instant.parse("2026-03-31T00:00:00Z"), DAY, BERLIN);
        assertThat(march)
                .containsExactly(
                        Instant.parse("2026-03-27T23:00:00Z"),
                        Instant.parse("2026-03-28T23:00:00Z"),
                        Instant.parse("2026-03-29T22:00:00Z"),
                        Instant.parse("2026-03-30T22:00:00Z"));
        assertThat(Duration.between(march.get(1), march.get(2))).isEqualTo(Duration.ofHours(23));

        List<Instant> october = slots.missingSlots(
                "daily", Instant.parse("2026-10-24T00:00:00Z"), Instant.parse("2026-10-26T12:00:00Z"), DAY, BERLIN);
        assertThat(october)
                .containsExactly(Instant.parse("2026-10-24T22:00:00Z"), Instant.parse("2026-10-25T23:00:00Z"));
        assertThat(Duration.between(october.get(0), october.get(1))).isEqualTo(Duration.ofHours(25));

        slots.tryClaim("daily", march.get(2), "r", LEASE).orElseThrow();
        assertThat(slots.missingSlots("daily", from, Instant.parse("2026-03-31T00:00:00Z"), DAY, BERLIN))
                .doesNotContain(march.get(2))
                .hasSize(3);
    }

    @Test
    void anHourlyJobInIndiaHasItsSlotsAtHalfPastTheUtcHour() {
        List<Instant> missing = slots.missingSlots(
                "hourly", Instant.parse("2026-11-29T10:00:00Z"), Instant.parse("2026-11-29T13:00:00Z"), HOUR, KOLKATA);
        assertThat(missing)
                .containsExactly(
                        Instant.parse("2026-11-29T10:30:00Z"),
                        Instant.parse("2026-11-29T11:30:00Z"),
                        Instant.parse("2026-11-29T12:30:00Z"));
        assertThat(SlotRuns.slotOf(Instant.parse("2026-11-29T10:47:00Z"), HOUR, KOLKATA))
                .isEqualTo(Instant.parse("2026-11-29T10:30:00Z"));
    }

    /** One slot per wall-clock time: 23 on the short day, 24 on the long one (01:00 happens twice, one slot). */
    @Test
    void hourlySlotsAreOnePerWallClockHourOnTheShortAndTheLongDay() {
        assertThat(localDay(LocalDate.parse("2026-03-08"))).hasSize(23);
        List<Instant> fallBack = localDay(LocalDate.parse("2026-11-01"));
        assertThat(fallBack).hasSize(24);
        assertThat(fallBack)
                .contains(Instant.parse("2026-11-01T05:00:00Z")) // 01:00 EDT, the first of the two
                .doesNotContain(Instant.parse("2026-11-01T06:00:00Z")); // 01:00 EST, the repeat
        assertThat(SlotRuns.slotOf(Instant.parse("2026-03-29T12:00:00Z"), DAY, BERLIN))
                .isEqualTo(Instant.parse("2026-03-28T23:00:00Z"));
    }

    @Test
    void inUtcTheZonedGridIsTheEpochGrid() {
        Instant from = Instant.parse("2026-11-29T03:00:00Z");
        Instant to = from.plus(Duration.ofMinutes(90));
        Duration quarter = Duration.ofMinutes(15);
        slots.tryClaim("q", from.plus(quarter), "r", LEASE).orElseThrow();
        assertThat(slots.missingSlots("q", from, to, quarter, ZoneOffset.UTC))
                .isEqualTo(slots.missingSlots("q", from, to, quarter))
                .hasSize(5);
    }

    /** tryClaim takes a slot as given: an off-grid claim fills no grid slot and is never reported missing. */
    @Test
    void anOffGridClaimIsASlotOfItsOwn() {
        Instant onGrid = Instant.parse("2026-11-29T03:00:00Z");
        Instant offGrid = onGrid.plusSeconds(7);
        Duration minute = Duration.ofMinutes(1);
        assertThat(slots.tryClaim("job", offGrid, "a", LEASE)).isPresent();

        assertThat(slots.missingSlots("job", onGrid, onGrid.plus(minute), minute, ZoneOffset.UTC))
                .containsExactly(onGrid);
        assertThat(slots.tryClaim("job", onGrid, "b", LEASE))
                .as("the grid slot is still free")
                .isPresent();
        assertThat(SlotRuns.slotOf(offGrid, minute, ZoneOffset.UTC)).isEqualTo(onGrid);
    }

    @Test
    void badInputIsRejected() {
        Instant from = Instant.parse("2026-11-29T03:00:00Z");
        Instant to = from.plus(DAY);
        assertThatThrownBy(() -> slots.missingSlots("j", from, to, Duration.ofSeconds(30), BERLIN))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least a minute");
        assertThatThrownBy(() -> slots.missingSlots("j", from, to, Duration.ofMinutes(7), BERLIN))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("divide a day");
        assertThatThrownBy(() -> slots.missingSlots("j", from, to, Duration.ofDays(2), BERLIN))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> slots.missingSlots("j", from, to, HOUR, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("zone must not be null");
        assertThatThrownBy(() -> slots.missingSlots("j", to, from, HOUR, BERLIN))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be after");
        assertThatThrownBy(() ->
                        slots.missingSlots("j", from, from.plus(Duration.ofDays(100)), Duration.ofMinutes(1), BERLIN))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most");
        assertThatThrownBy(() -> SlotRuns.slotOf(null, HOUR, BERLIN)).isInstanceOf(IllegalArgumentException.class);
    }

    private List<Instant> localDay(LocalDate day) {
        return slots.missingSlots(
                "hourly",
                day.atStartOfDay(NEW_YORK).toInstant(),
                day.plusDays(1).atStartOfDay(NEW_YORK).toInstant(),
                HOUR,
                NEW_YORK);
    }
    /**
     * Issue 21, defect 4, for slots: with another connection holding the slot's row (SELECT ... FOR UPDATE in an open
     * transaction) and a 500 ms lock timeout (1 s on MariaDB), renew and complete fail with a StoreException within
     * 5 s each (10 lock timeouts) instead of waiting for the row.
     */
    @Test
    void renewAndCompleteOnALockedSlotFailWithinTheLockTimeout() throws SQLException {
        DataSource ds = dataSource();
        SlotRuns impatient = new SlotRuns(ds, StoreConfig.defaults().withLockTimeout(Duration.ofMillis(500)));
        SlotClaim claim = impatient
                .tryClaim("locked", Instant.parse("2026-03-01T00:00:00Z"), "r", LEASE)
                .orElseThrow();
        try (Connection holder = ds.getConnection()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.executeQuery("SELECT job FROM leasehold_slot_runs WHERE job = 'locked' FOR UPDATE")
                        .close();
            }
            try {
                failsWithinTenLockTimeouts("renew", () -> impatient.renew(claim, LEASE));
                failsWithinTenLockTimeouts("complete", () -> impatient.complete(claim, "done"));
            } finally {
                holder.rollback();
            }
        }
        assertThat(impatient.complete(claim, "done")).as("once the row is free").isTrue();
    }

    private static void failsWithinTenLockTimeouts(
            String what, org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                Duration.ofSeconds(5),
                () -> assertThatThrownBy(call).as(what).isInstanceOf(dev.leasehold.store.StoreException.class),
                what + " still waited for the locked row after 5 s (10 lock timeouts)");
    }
}
