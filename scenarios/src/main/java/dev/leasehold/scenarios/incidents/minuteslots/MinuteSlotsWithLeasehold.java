package dev.leasehold.scenarios.incidents.minuteslots;

import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.CRASHING_SLOT;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.DEPLOY_GAP;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.JOB;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.LEASE_MS;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.MINUTE;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.NAME;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.REPLICAS;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.RUN_MS;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.SLOTS;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.SLOT_MS;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.SLOW_RUN_MS;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.SLOW_SLOT;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.hhmm;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.listOrNone;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.replicas;
import static dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario.slot;

import dev.leasehold.scenarios.Latches;
import dev.leasehold.scenarios.RunResult;
import dev.leasehold.scenarios.cli.Env;
import dev.leasehold.scenarios.report.Timeline;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.slots.SlotClaim;
import dev.leasehold.store.slots.SlotRuns;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * {@link MinuteSlotsScenario}, with Leasehold: {@link SlotRuns} (insert-if-absent on (job, slot), a sweep that takes
 * over expired runs with a higher fence, catch-up of missing slots). Every slot is done exactly once, the slow runner's
 * late complete is rejected, and the slots the deploy missed are caught up.
 *
 * <p>Thread-safety: one run on the calling thread; the racers and the slow runner are threads of their own.
 */
final class MinuteSlotsWithLeasehold {

    private MinuteSlotsWithLeasehold() {}

    static RunResult run(Env env) throws Exception {
        env.out().println("-- with Leasehold: SlotRuns (unique (job, slot), sweep with a fence, catch-up)");
        Timeline timeline = new Timeline(NAME + ": with Leasehold", env.out(), replicas());
        DataSource ds = env.dataSource(NAME + "-leasehold");
        String prefix = env.tablePrefix();
        StoreConfig config = StoreConfig.defaults().withTablePrefix(prefix);
        FencedSchema.install(ds, config);
        SlotRuns slots = new SlotRuns(ds, config);
        ExecutorService racers = Executors.newFixedThreadPool(REPLICAS);
        List<String> winnerCounts = new ArrayList<>();
        List<String> lateRejected = new ArrayList<>();
        List<Thread> slowRunners = new ArrayList<>();
        try {
            CountDownLatch slowSlotSwept = new CountDownLatch(1);
            for (int index = 0; index < SLOTS; index++) {
                Instant slot = slot(index);
                if (DEPLOY_GAP.contains(index)) {
                    timeline.problem(
                            "replica-0", "slot " + hhmm(slot) + ": deploy in progress, no replica alive", hhmm(slot));
                    Thread.sleep(SLOT_MS); // the story's minute
                    continue;
                }
                sweep(slots, timeline, slowSlotSwept);
                if (index == DEPLOY_GAP.get(DEPLOY_GAP.size() - 1) + 1) {
                    catchUp(slots, timeline, racers, winnerCounts);
                }
                List<SlotClaim> winners = race(slots, racers, slot);
                report(timeline, winnerCounts, slot, winners);
                if (winners.size() != 1) {
                    continue;
                }
                SlotClaim claim = winners.get(0);
                if (index == CRASHING_SLOT) {
                    timeline.problem(
                            claim.runner(),
                            "slot " + hhmm(slot) + ": CRASHED mid-run (fence " + claim.fence() + ")",
                            hhmm(slot));
                } else if (index == SLOW_SLOT) {
                    Thread slow = slowRunner(slots, timeline, claim, slowSlotSwept, lateRejected);
                    slowRunners.add(slow);
                } else {
                    Thread.sleep(RUN_MS); // the story's run time
                    complete(slots, timeline, claim);
                }
                Thread.sleep(SLOT_MS - RUN_MS); // the rest of the story's minute
            }
            sweep(slots, timeline, slowSlotSwept);
            for (Thread slow : slowRunners) {
                slow.join(15_000);
            }
            timeline.finish();
            List<Instant> missing = slots.missingSlots(JOB, slot(0), slot(SLOTS), MINUTE);
            long done = 0;
            for (int i = 0; i < SLOTS; i++) {
                done += slots.state(JOB, slot(i))
                                .filter(s -> s.status().equals("done"))
                                .isPresent()
                        ? 1
                        : 0;
            }
            List<String> multiple =
                    winnerCounts.stream().filter(w -> !w.endsWith(" 1")).toList();
            List<String> verdicts = List.of(
                    "slots done: " + done + " of " + SLOTS + "; slots with more than one winner: "
                            + listOrNone(multiple),
                    "late completes rejected: " + listOrNone(lateRejected),
                    "missing slots after catch-up: "
                            + listOrNone(missing.stream()
                                    .map(MinuteSlotsScenario::hhmm)
                                    .toList()));
            env.printVerdicts(verdicts);
            boolean held = done == SLOTS && multiple.isEmpty() && !lateRejected.isEmpty() && missing.isEmpty();
            return new RunResult(
                    NAME,
                    "with Leasehold",
                    false,
                    timeline,
                    verdicts,
                    held,
                    "every slot done exactly once, the slow runner's late complete rejected, no slot missing");
        } finally {
            racers.shutdownNow();
            slowRunners.forEach(Thread::interrupt);
            env.dropTables(ds, prefix);
        }
    }

    /** All ten replicas race for the slot at once; returns the winners (exactly one, by SlotRuns' contract). */
    private static List<SlotClaim> race(SlotRuns slots, ExecutorService racers, Instant slot) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Optional<SlotClaim>>> attempts = new ArrayList<>();
        for (String replica : replicas()) {
            attempts.add(racers.submit(() -> {
                Latches.await(go, 10_000, "the race starts");
                return slots.tryClaim(JOB, slot, replica, Duration.ofMillis(LEASE_MS));
            }));
        }
        go.countDown();
        List<SlotClaim> winners = new ArrayList<>();
        for (Future<Optional<SlotClaim>> attempt : attempts) {
            attempt.get(10, TimeUnit.SECONDS).ifPresent(winners::add);
        }
        return winners;
    }

    private static void report(Timeline timeline, List<String> winnerCounts, Instant slot, List<SlotClaim> winners) {
        String names = winners.stream().map(SlotClaim::runner).collect(Collectors.joining(", "));
        String line =
                "slot " + hhmm(slot) + ": " + winners.size() + " winner(s) -> " + (names.isEmpty() ? "none" : names);
        timeline.info(winners.isEmpty() ? "replica-0" : winners.get(0).runner(), line, hhmm(slot));
        winnerCounts.add(hhmm(slot) + " " + winners.size());
    }

    private static void complete(SlotRuns slots, Timeline timeline, SlotClaim claim) {
        if (slots.complete(claim, "report for " + hhmm(claim.slot()) + " by " + claim.runner())) {
            timeline.accepted(
                    claim.runner(),
                    "slot " + hhmm(claim.slot()) + ": complete with fence " + claim.fence() + " (1 row)",
                    claim.fence(),
                    hhmm(claim.slot()));
        } else {
            timeline.rejected(
                    claim.runner(),
                    "slot " + hhmm(claim.slot()) + ": complete with fence " + claim.fence()
                            + " REJECTED (0 rows): the slot was taken over",
                    claim.fence(),
                    hhmm(claim.slot()));
        }
    }

    /** The slow (not dead) runner: outlives its lease, and completes only after the sweep took its slot over. */
    private static Thread slowRunner(
            SlotRuns slots, Timeline timeline, SlotClaim claim, CountDownLatch swept, List<String> lateRejected) {
        Thread slow = new Thread(
                () -> {
                    int work = timeline.begin(claim.runner(), Timeline.SpanKind.PAUSE, "slow run (GC pause)");
                    try {
                        Thread.sleep(SLOW_RUN_MS); // the story's slow run, longer than its lease
                        Latches.await(swept, 10_000, "the sweep takes the slow runner's slot over");
                        timeline.end(work);
                        if (!slots.complete(claim, "late report by " + claim.runner())) {
                            synchronized (lateRejected) {
                                lateRejected.add(
                                        hhmm(claim.slot()) + " (" + claim.runner() + ", fence " + claim.fence() + ")");
                            }
                            timeline.rejected(
                                    claim.runner(),
                                    "slot " + hhmm(claim.slot()) + ": late complete with fence " + claim.fence()
                                            + " REJECTED (0 rows): the slot was swept",
                                    claim.fence(),
                                    hhmm(claim.slot()));
                        } else {
                            timeline.problem(claim.runner(), "slot " + hhmm(claim.slot()) + ": late complete accepted");
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "slow-" + claim.runner());
        slow.start();
        return slow;
    }

    /** The recovery sweep, run by replica-7 at the start of each minute; it runs and completes what it takes. */
    private static void sweep(SlotRuns slots, Timeline timeline, CountDownLatch slowSlotSwept) {
        List<SlotClaim> taken = slots.sweep(JOB, "replica-7", Duration.ofMillis(LEASE_MS));
        for (SlotClaim claim : taken) {
            timeline.info(
                    "replica-7",
                    "sweep: took over slot " + hhmm(claim.slot()) + " (lease expired), fence " + claim.fence(),
                    hhmm(claim.slot()));
            if (claim.slot().equals(slot(SLOW_SLOT))) {
                slowSlotSwept.countDown();
            }
            complete(slots, timeline, claim);
        }
    }

    /** After the deploy: find the slots nobody claimed, and run each once. */
    private static void catchUp(SlotRuns slots, Timeline timeline, ExecutorService racers, List<String> winnerCounts)
            throws Exception {
        List<Instant> missing =
                slots.missingSlots(JOB, slot(0), slot(DEPLOY_GAP.get(DEPLOY_GAP.size() - 1) + 1), MINUTE);
        timeline.info(
                "replica-0",
                "deploy done; catch-up scan finds missing slots: "
                        + listOrNone(
                                missing.stream().map(MinuteSlotsScenario::hhmm).toList()));
        for (Instant slot : missing) {
            List<SlotClaim> winners = race(slots, racers, slot);
            report(timeline, winnerCounts, slot, winners);
            for (SlotClaim claim : winners) {
                Thread.sleep(RUN_MS); // the story's run time
                complete(slots, timeline, claim);
            }
        }
    }
}
