package dev.leasehold.store.slots;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The slots of a period in a time zone: the wall-clock times {@code 00:00 + k * period} of every local day (the
 * period is at least a minute and divides a day). A wall-clock time that does not exist (the hour skipped when
 * clocks go forward) moves forward by the gap, as {@link ZonedDateTime#of} does, and is one slot with the time it lands on if that is on the
 * grid too; a wall-clock time that happens twice (clocks go back) is one slot, at its earlier instant. So a daily job
 * runs at every local midnight, 23 or 25 hours apart around a change; an hourly one has 23 slots on the short day and
 * 24 on the long one. Stateless and thread-safe.
 */
final class SlotGrid {

    private static final long DAY_MILLIS = Duration.ofDays(1).toMillis();

    private SlotGrid() {}

    /** The period in milliseconds, if it is at least a minute and divides a day. */
    static long periodMillis(Duration period) {
        if (period == null
                || period.isNegative()
                || period.isZero()
                || period.toNanos() % 1_000_000 != 0
                || period.compareTo(Duration.ofMinutes(1)) < 0
                || period.compareTo(Duration.ofDays(1)) > 0
                || DAY_MILLIS % period.toMillis() != 0) {
            throw new IllegalArgumentException("with a time zone, the period must be at least a minute and divide a"
                    + " day (e.g. PT1M, PT15M, PT1H, PT24H), was " + period);
        }
        return period.toMillis();
    }

    /** The slots in {@code [from, to)}, oldest first. */
    static List<Instant> slots(Instant from, Instant to, long periodMillis, ZoneId zone) {
        TreeSet<Instant> slots = new TreeSet<>();
        LocalDate last = to.atZone(zone).toLocalDate();
        for (LocalDate day = from.atZone(zone).toLocalDate(); !day.isAfter(last); day = day.plusDays(1)) {
            for (Instant slot : day(day, periodMillis, zone)) {
                if (!slot.isBefore(from) && slot.isBefore(to)) {
                    slots.add(slot);
                }
            }
        }
        return new ArrayList<>(slots);
    }

    /** The latest slot at or before {@code at}. */
    static Instant slotOf(Instant at, long periodMillis, ZoneId zone) {
        LocalDate day = at.atZone(zone).toLocalDate();
        Instant latest = null;
        for (Instant slot : day(day, periodMillis, zone)) {
            if (!slot.isAfter(at)) {
                latest = slot;
            }
        }
        if (latest == null) { // before the first slot of its local day (cannot happen with the rules above)
            List<Instant> previous = day(day.minusDays(1), periodMillis, zone);
            latest = previous.get(previous.size() - 1);
        }
        return latest;
    }

    private static List<Instant> day(LocalDate day, long periodMillis, ZoneId zone) {
        List<Instant> slots = new ArrayList<>();
        LocalDateTime midnight = day.atStartOfDay();
        for (long offset = 0; offset < DAY_MILLIS; offset += periodMillis) {
            slots.add(ZonedDateTime.of(midnight.plus(Duration.ofMillis(offset)), zone)
                    .toInstant());
        }
        return slots;
    }
}
