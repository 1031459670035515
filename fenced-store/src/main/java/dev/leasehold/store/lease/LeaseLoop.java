package dev.leasehold.store.lease;

import dev.leasehold.store.StoreException;
import java.util.OptionalLong;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The election's loop thread: every retry period, a follower tries to take the lease (one UPDATE) and a holder
 * renews it (one UPDATE); releases run here too, after whatever statement is in flight. Nothing else runs on this
 * thread, so a slow listener never delays a renew; a renew that hangs delays the next one, never the loss, which the
 * deadline check on the event thread tells.
 *
 * <p>Timing: a holder's renews start {@code retryPeriod} apart (from the start of the previous one); a follower's
 * tries are {@code retryPeriod} plus a jitter of up to 20% apart, so that many followers started together spread
 * out.
 *
 * <p>Thread-safety: thread-safe; the ticks run on the loop thread only.
 */
final class LeaseLoop {

    private static final Logger log = LoggerFactory.getLogger(LeaseElection.class);

    private final String who;
    private final LeaseRows rows;
    private final Leadership leadership;
    private final long leaseMillis;
    private final long retryNanos;
    private final ScheduledThreadPoolExecutor thread;
    private volatile boolean stopped;
    private volatile ScheduledFuture<?> next;
    private volatile Thread loopThread;
    /** No take before this {@link System#nanoTime()} (after a loss by progress deadline). */
    private volatile long noTakeBefore = System.nanoTime();
    /** Consecutive failed statements, to log the first at WARN and the rest at DEBUG. Loop thread only. */
    private int failures;

    LeaseLoop(String who, LeaseRows rows, Leadership leadership, LeaseTiming timing, String threadName) {
        this.who = who;
        this.rows = rows;
        this.leadership = leadership;
        this.leaseMillis = timing.leaseDuration().toMillis();
        this.retryNanos = timing.retryPeriod().toNanos();
        this.thread = LeaseThreads.single(threadName);
    }

    void start() {
        next = thread.schedule(this::tick, 0, TimeUnit.NANOSECONDS);
    }

    /** No more ticks; a tick in flight finishes (a take it won is released, never granted). */
    void stop() {
        stopped = true;
        ScheduledFuture<?> pending = next;
        if (pending != null) {
            pending.cancel(false);
        }
    }

    /**
     * Releases the grant of {@code token} (none if 0) after the statement in flight, then runs {@code then} (on this
     * thread).
     */
    void release(long token, Runnable then) {
        try {
            thread.execute(() -> {
                loopThread = Thread.currentThread();
                try {
                    if (token > 0) {
                        releaseNow(token);
                    }
                } finally {
                    then.run();
                }
            });
        } catch (RejectedExecutionException e) {
            then.run(); // shut down: the lease ends on its own
        }
    }

    /**
     * After a loss by progress deadline: no take for two retry periods from now, so that a follower (who tries once
     * per retry period plus jitter) takes the released lease first; alone, this holder takes it again after that.
     */
    void sitOut() {
        noTakeBefore = System.nanoTime() + 2 * retryNanos;
    }

    /** Queued tasks still run; the next tick is dropped. */
    void shutdown() {
        thread.shutdown();
    }

    boolean isLoopThread() {
        return Thread.currentThread() == loopThread;
    }

    private void tick() {
        loopThread = Thread.currentThread();
        if (stopped) {
            return;
        }
        long start = System.nanoTime();
        Grant g = leadership.held();
        long delay = retryNanos;
        try {
            if (g == null && start - noTakeBefore < 0) {
                // sitting out after a loss by progress deadline: a follower takes over first
            } else if (g == null) {
                take(start);
                if (leadership.held() == null) {
                    delay += ThreadLocalRandom.current().nextLong(retryNanos / 5 + 1);
                }
            } else {
                renew(g, start);
            }
        } finally {
            schedule(start + delay);
        }
    }

    private void take(long start) {
        OptionalLong taken;
        try {
            taken = rows.take(leaseMillis);
            failures = 0;
        } catch (StoreException e) {
            failed("a take", e);
            return;
        }
        if (taken.isEmpty()) {
            return;
        }
        long token = taken.getAsLong();
        if (stopped || !leadership.granted(token, start)) {
            log.info(
                    "[{}] took the lease with token {} too late to use it (closing, or the take outlasted the renew"
                            + " deadline); releasing it",
                    who,
                    token);
            releaseNow(token);
            return;
        }
        log.info("[{}] took the lease: token {}", who, token);
    }

    private void renew(Grant g, long start) {
        if (leadership.stalled(g.token())) {
            log.warn(
                    "[{}] token {}: the leader's work made no progress within its deadline; not renewing",
                    who,
                    g.token());
            return; // the release follows the listeners' lost(STALLED)
        }
        boolean current;
        try {
            current = rows.renew(g.token(), leaseMillis);
            failures = 0;
        } catch (StoreException e) {
            failed("a renew of token " + g.token(), e);
            return;
        }
        if (current) {
            leadership.renewed(g.token(), start);
        } else if (leadership.lose(g.token(), LeaseLoss.TAKEN_OVER)) {
            log.warn(
                    "[{}] token {}: the renew found the lease no longer held by this grant (taken over, or expired"
                            + " by the database's clock first)",
                    who,
                    g.token());
        }
    }

    private void releaseNow(long token) {
        try {
            boolean released = rows.release(token);
            log.info("[{}] token {}: {}", who, token, released ? "released the lease" : "nothing to release");
        } catch (StoreException e) {
            log.warn("[{}] token {}: the release failed; the lease ends on its own: {}", who, token, e.getMessage());
        }
    }

    private void failed(String what, StoreException e) {
        if (failures++ == 0) {
            log.warn("[{}] {} failed (retried every retry period): {}", who, what, e.getMessage());
        } else {
            log.debug("[{}] {} failed again: {}", who, what, e.getMessage());
        }
    }

    private void schedule(long atNanos) {
        if (stopped) {
            return;
        }
        try {
            next = thread.schedule(this::tick, Math.max(0, atNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // shut down
        }
    }
}
