package dev.leasehold.recipes;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A leader's progress deadline: while a grant lasts, the leader's work calls {@link #progress()}; if no call comes
 * within the deadline, {@link Stalled#stalled} is told once for that grant. A leader that holds its lease (its
 * session, its node) while its work hangs on a lock, a dead socket or a full queue then gives leadership up, so that
 * another participant leads: the lease is tied to progress, not to being alive.
 *
 * <p>{@link #progress()} is one volatile write of {@link System#nanoTime()}: no lock, no I/O, no allocation. The
 * deadline is checked on one timer thread shared by every watch of the JVM (a daemon that ends when no watch is
 * armed); a check reschedules itself for the moment the deadline would pass after the last progress, so a leader
 * that calls {@code progress()} a million times a second costs the timer one wake-up per deadline.
 *
 * <p>Off (no deadline) by default: {@link #leading} and {@link #notLeading} then only track the time since the last
 * progress, and nothing is ever told.
 *
 * <p>Thread-safety: thread-safe. {@code stalled} runs on the timer thread: it must not block (the recipes only swap
 * a reference and queue work on their own thread).
 */
final class ProgressWatch {

    /** Told that a grant's work made no progress within the deadline. Must not block. */
    interface Stalled {
        /**
         * @param token the grant's token
         * @param idle  how long the work went without calling {@code progress()}
         */
        void stalled(FencingToken token, Duration idle);
    }

    /** The longest deadline accepted: a stall longer than this is not a stall but a design. */
    static final Duration MAX_DEADLINE = Duration.ofDays(1);

    private static final class Timer {
        static final ScheduledThreadPoolExecutor THREAD = newTimer();

        private static ScheduledThreadPoolExecutor newTimer() {
            ScheduledThreadPoolExecutor timer =
                    new ScheduledThreadPoolExecutor(1, ElectionNodes.namedDaemon("leasehold-progress-watch"));
            timer.setRemoveOnCancelPolicy(true);
            timer.setKeepAliveTime(2, TimeUnit.SECONDS);
            timer.allowCoreThreadTimeOut(true);
            return timer;
        }
    }

    /** The grant being watched; replaced, never mutated. */
    private record Watched(FencingToken token, long deadlineNanos) {}

    private final Stalled stalled;
    private volatile Duration deadline;
    private volatile long lastProgress = System.nanoTime();
    private final AtomicReference<Watched> watched = new AtomicReference<>();
    private final AtomicReference<ScheduledFuture<?>> check = new AtomicReference<>();

    ProgressWatch(Stalled stalled) {
        this.stalled = stalled;
    }

    /** Validates a deadline given to a recipe: present, more than 0, at most {@link #MAX_DEADLINE}. */
    static Duration requireDeadline(Duration deadline) {
        ElectionNodes.requireArgument(deadline, "progressDeadline");
        if (deadline.isNegative() || deadline.isZero() || deadline.compareTo(MAX_DEADLINE) > 0) {
            throw new IllegalArgumentException("progressDeadline must be more than 0 and at most " + MAX_DEADLINE
                    + " (leave it unset to never give leadership up for want of progress), was " + deadline);
        }
        return deadline;
    }

    /** Sets the deadline for the grants that begin from now on. */
    void deadline(Duration deadline) {
        this.deadline = requireDeadline(deadline);
    }

    Optional<Duration> deadline() {
        return Optional.ofNullable(deadline);
    }

    /** The work advanced: one volatile write. Outside a grant it changes nothing that matters (a grant resets it). */
    void progress() {
        lastProgress = System.nanoTime();
    }

    /** A grant of {@code token} began: its work has made progress now; arms the deadline, if one is set. */
    void leading(FencingToken token) {
        Duration current = deadline;
        Watched next = new Watched(token, current == null ? 0 : current.toNanos());
        lastProgress = System.nanoTime();
        watched.set(next);
        if (next.deadlineNanos() > 0) {
            schedule(next, next.deadlineNanos());
        }
    }

    /** The grant ended (whatever the cause): disarms the deadline. */
    void notLeading() {
        watched.set(null);
        ScheduledFuture<?> pending = check.getAndSet(null);
        if (pending != null) {
            pending.cancel(false);
        }
    }

    /**
     * The grant of {@code token} ended: disarms the deadline if that grant is still the one watched (a later grant's
     * watch is left alone). A check already scheduled for it wakes once and finds nothing to do.
     */
    void notLeading(FencingToken token) {
        Watched current = watched.get();
        if (current != null && current.token() == token) {
            watched.compareAndSet(current, null);
        }
    }

    /** How long since the last progress, while a grant is watched; empty otherwise. */
    Optional<Duration> sinceProgress() {
        if (watched.get() == null) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofNanos(Math.max(0, System.nanoTime() - lastProgress)));
    }

    private void schedule(Watched grant, long delayNanos) {
        ScheduledFuture<?> next = Timer.THREAD.schedule(() -> check(grant), delayNanos, TimeUnit.NANOSECONDS);
        ScheduledFuture<?> previous = check.getAndSet(next);
        if (previous != null && previous != next) {
            previous.cancel(false);
        }
        if (watched.get() != grant) { // ended while scheduling: do not leave a check behind
            next.cancel(false);
        }
    }

    private void check(Watched grant) {
        if (watched.get() != grant) {
            return;
        }
        long idle = System.nanoTime() - lastProgress;
        if (idle < grant.deadlineNanos()) {
            schedule(grant, grant.deadlineNanos() - idle);
            return;
        }
        if (watched.compareAndSet(grant, null)) {
            stalled.stalled(grant.token(), Duration.ofNanos(idle));
        }
    }
}
