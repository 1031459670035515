package dev.leasehold.scenarios.incidents.duplicatebatch;

import dev.leasehold.scenarios.Latches;
import dev.leasehold.scenarios.report.Timeline;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * The lock form's story, in the seeds' code shape on two pods (two threads, a registry each, as two processes have):
 *
 * <pre>{@code
 * Lock lock = registry.obtain("batch");
 * if (lock.tryLock()) {
 *     try { take the next batch, process it, push it } finally { lock.unlock(); }
 * }
 * }</pre>
 *
 * pod-A takes the lock (ttl 2 s), reads the next batch and is paused (simulated: its thread stalls until pod-B's
 * tick is over, as a GC pause or a frozen VM would stop it; the lock expires meanwhile). pod-B's scheduler calls
 * {@code tryLock} every 200 ms: it fails while pod-A's lock lives and succeeds once it expired; pod-B reads the same batch (not pushed yet), processes
 * and pushes it, and unlocks. Then pod-A resumes, pushes, and unlocks. The order is fixed by latches and by the
 * lock's own expiry, never by timing.
 */
final class LockTicks {

    static final String KEY = "batch";
    /** Long enough that pod-B's tick (300 ms of work, then the push) ends well inside its own hold. */
    static final Duration TTL = Duration.ofSeconds(2);

    private static final long TRY_MS = 200;
    private static final long WORK_MS = 300;
    private static final long WAIT_MS = 30_000;

    /**
     * What the story ended with.
     *
     * @param podBTries   pod-B's {@code tryLock} calls until one returned true
     * @param podAUnlock  what pod-A's {@code unlock} said after its pause: {@code unlocked} or the exception's name
     */
    record Outcome(int podBTries, String podAUnlock) {}

    private LockTicks() {}

    static Outcome run(
            Timeline timeline,
            LockRegistry<?> podA,
            LockRegistry<?> podB,
            Accounting accounting,
            LockedPush push,
            String lockLabel)
            throws Exception {
        CountDownLatch aPaused = new CountDownLatch(1);
        CountDownLatch bDone = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<String> aUnlock = new AtomicReference<>("never locked");
        Thread a = new Thread(
                () -> {
                    try {
                        Lock lock = podA.obtain(KEY);
                        long asked = timeline.now();
                        if (lock.tryLock()) {
                            try {
                                tick(timeline, "pod-A", lock, asked, "", accounting, push, lockLabel, aPaused, bDone);
                            } finally {
                                aUnlock.set(unlock(timeline, "pod-A", lock));
                            }
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    } finally {
                        aPaused.countDown();
                    }
                },
                "scenario-pod-A");
        a.start();
        int tries = 0;
        try {
            Latches.await(aPaused, WAIT_MS, "pod-A has taken the lock and is paused");
            Lock lock = podB.obtain(KEY);
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
            boolean ticked = false;
            while (!ticked && failure.get() == null && System.nanoTime() < deadline) {
                tries++;
                long asked = timeline.now();
                if (lock.tryLock()) {
                    try {
                        String how = " at try " + tries + " (one every " + TRY_MS + " ms): pod-A's lock expired";
                        tick(timeline, "pod-B", lock, asked, how, accounting, push, lockLabel, null, null);
                    } finally {
                        unlock(timeline, "pod-B", lock);
                    }
                    ticked = true;
                } else {
                    Thread.sleep(TRY_MS); // pod-B's scheduler: the next try 200 ms later
                }
            }
            if (!ticked && failure.get() == null) {
                throw new IllegalStateException("pod-B never got the lock in " + tries + " tries");
            }
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        } finally {
            bDone.countDown();
            a.join(WAIT_MS);
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a pod failed: " + failure.get(), failure.get());
        }
        return new Outcome(tries, aUnlock.get());
    }

    /**
     * One tick under the lock taken by a {@code tryLock} called at {@code asked} (the lock's ttl runs from about then);
     * {@code how} ends the line that says so; {@code paused} and {@code resume} are pod-A's pause, null for pod-B.
     */
    private static void tick(
            Timeline timeline,
            String pod,
            Lock lock,
            long asked,
            String how,
            Accounting accounting,
            LockedPush push,
            String lockLabel,
            CountDownLatch paused,
            CountDownLatch resume)
            throws Exception {
        timeline.span(pod, Timeline.SpanKind.LEASE, lockLabel, asked, asked + TTL.toMillis());
        timeline.info(pod, "tryLock(\"" + KEY + "\") true" + how + "; ttl " + TTL.toSeconds() + " s");
        long token = push.taken(pod, lock);
        String batch = accounting.nextBatch();
        timeline.info(pod, "next batch " + batch + " (not pushed yet), processing");
        if (paused != null) {
            long pauseFrom = timeline.now();
            paused.countDown();
            // The simulated pause (GC, a frozen VM): pod-A's thread stalls until pod-B's tick is over, past its ttl.
            Latches.await(resume, WAIT_MS, "pod-B's tick");
            long now = timeline.now();
            timeline.span(pod, Timeline.SpanKind.PAUSE, "paused", pauseFrom, now);
            timeline.info(
                    pod,
                    "resumes after " + (now - pauseFrom) + " ms, still in its tick: its lock's ttl ended near t="
                            + (asked + TTL.toMillis()) + "ms");
        } else {
            int work = timeline.begin(pod, Timeline.SpanKind.WORK, "processing");
            Thread.sleep(WORK_MS); // the story's normal processing time
            timeline.end(work);
        }
        push.push(pod, batch, token);
    }

    /** The {@code finally}'s unlock, told on the timeline; returns what it said. */
    private static String unlock(Timeline timeline, String pod, Lock lock) {
        try {
            lock.unlock();
            timeline.info(pod, "unlock");
            return "unlocked";
        } catch (ConcurrentModificationException e) {
            timeline.info(pod, "unlock: ConcurrentModificationException (the lock was lost), after the push");
            return "ConcurrentModificationException";
        }
    }
}
