package dev.leasehold.scenarios.incidents.minuteslots;

import dev.leasehold.scenarios.RunResult;
import dev.leasehold.scenarios.Scenario;
import dev.leasehold.scenarios.cli.Env;
import dev.leasehold.store.slots.SlotRuns;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * Case 3: one job per minute across ten replicas, with minutes compressed to about a second. The story: slots 03:00
 * to 03:07; the winner of 03:02 crashes mid-run; the winner of 03:03 is slow (not dead) and outlives its lease; a
 * deploy at 03:05 leaves no replica alive for 03:05 and 03:06.
 *
 * <p>As it happened: a plain "am I leader?" check per replica (a lease with heartbeats, like incident 1's) and a
 * job_runs table without a unique slot. With Leasehold: {@link SlotRuns} (insert-if-absent on (job, slot), a sweep
 * that takes over expired runs with a higher fence, catch-up of missing slots).
 *
 * <p>This class holds the story (its slots, replicas and timings); each run is told step by step in its own class,
 * {@link MinuteSlotsAsItHappened} and {@link MinuteSlotsWithLeasehold}, in the order the timeline shows it.
 */
public final class MinuteSlotsScenario implements Scenario {

    static final String NAME = "minute-slots";
    static final int REPLICAS = 10;
    static final int SLOTS = 8;
    static final Instant FIRST = Instant.parse("2026-11-29T03:00:00Z");
    static final Duration MINUTE = Duration.ofMinutes(1);
    static final long RUN_MS = 150;
    static final long SLOW_RUN_MS = 1_500;
    static final long LEASE_MS = 500;
    static final long SLOT_MS = 1_000;
    static final int CRASHING_SLOT = 2;
    static final int SLOW_SLOT = 3;
    static final List<Integer> DEPLOY_GAP = List.of(5, 6);
    static final String JOB = "nightly-report";
    private static final DateTimeFormatter HHMM =
            DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String summary() {
        return "case 3: one job per minute across 10 replicas; a crash, a slow runner, a deploy gap";
    }

    @Override
    public List<RunResult> run(Env env) throws Exception {
        return List.of(MinuteSlotsAsItHappened.run(env), MinuteSlotsWithLeasehold.run(env));
    }

    static Instant slot(int index) {
        return FIRST.plus(MINUTE.multipliedBy(index));
    }

    static String hhmm(Instant slot) {
        return HHMM.format(slot);
    }

    static List<String> replicas() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < REPLICAS; i++) {
            names.add("replica-" + i);
        }
        return names;
    }

    static String listOrNone(List<String> values) {
        return values.isEmpty() ? "none" : String.join(", ", values);
    }
}
