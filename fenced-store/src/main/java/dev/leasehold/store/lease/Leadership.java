package dev.leasehold.store.lease;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The one place where this holder's grant changes: granted, renewed, lost (renew deadline, progress deadline, taken
 * over), closed. The grant is an
 * immutable {@link Grant} swapped whole; a grant past its deadline counts as lost for every reader at once, before
 * anyone has told the listeners. A grant and a loss are published and queued for the listeners under this object's
 * monitor, so the listeners hear them in the order they happened; no listener runs under it.
 *
 * <p>Thread-safety: thread-safe.
 */
final class Leadership {

    private final AtomicReference<Grant> grant = new AtomicReference<>();
    private final LeaseEvents events;
    private final long renewDeadlineNanos;
    /** Runs on the event thread after the listeners heard a loss (the release comes from here). */
    private final AfterLoss afterLoss;
    /** The progress deadline in nanoseconds; 0: off. Set before start. */
    private volatile long progressDeadlineNanos;
    /** When the leader's work last called {@code progress()} (or the grant began), on {@link System#nanoTime()}. */
    private volatile long lastProgress = System.nanoTime();
    /** Set by {@link #close}: no grant after it. Guarded by this. */
    private boolean closed;

    /** What happens once the listeners have heard that a grant ended. */
    @FunctionalInterface
    interface AfterLoss {
        void lost(long token, LeaseLoss cause);
    }

    Leadership(LeaseEvents events, LeaseTiming timing, AfterLoss afterLoss) {
        this.events = events;
        this.renewDeadlineNanos = timing.renewDeadline().toNanos();
        this.afterLoss = afterLoss;
    }

    /** The grant, if within its deadline now. */
    Grant current() {
        Grant g = grant.get();
        return g == null || g.expiredAt(System.nanoTime()) ? null : g;
    }

    /** The grant not yet declared lost, even past its deadline. */
    Grant held() {
        return grant.get();
    }

    /**
     * A take that started at {@code startNanos} returned {@code token}.
     *
     * @return false if the grant cannot be used (closed, or the take took longer than the renew deadline): release it
     */
    synchronized boolean granted(long token, long startNanos) {
        Grant g = new Grant(token, startNanos + renewDeadlineNanos);
        if (closed || g.expiredAt(System.nanoTime()) || grant.get() != null) {
            return false;
        }
        lastProgress = System.nanoTime(); // each grant starts its own progress clock
        grant.set(g);
        events.acquired(token);
        events.schedule(() -> checkDeadline(token), g.deadlineNanos() - System.nanoTime());
        long progressDeadline = progressDeadlineNanos;
        if (progressDeadline > 0) {
            events.schedule(() -> checkProgress(token), progressDeadline);
        }
        return true;
    }

    /**
     * A renew of {@code token} that started at {@code startNanos} succeeded: the deadline moves to start + renew
     * deadline, unless the old deadline passed before the answer came (then the grant is lost all the same).
     */
    void renewed(long token, long startNanos) {
        while (true) {
            Grant g = grant.get();
            if (g == null || g.token() != token) {
                return;
            }
            if (g.expiredAt(System.nanoTime())) {
                lose(token, LeaseLoss.RENEW_FAILED);
                return;
            }
            if (grant.compareAndSet(g, new Grant(token, startNanos + renewDeadlineNanos))) {
                return;
            }
        }
    }

    /** Sets the progress deadline (validated by the caller); before start only. */
    void progressDeadline(Duration deadline) {
        progressDeadlineNanos = deadline.toNanos();
    }

    /** The leader's work advanced: one volatile write. */
    void progress() {
        lastProgress = System.nanoTime();
    }

    /** How long since the last progress (or the grant), while this holder leads; empty otherwise. */
    Optional<Duration> sinceProgress() {
        if (current() == null) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofNanos(Math.max(0, System.nanoTime() - lastProgress)));
    }

    /**
     * Whether the grant of {@code token} is past its progress deadline; if so it is lost with STALLED here (the
     * release follows the listeners' {@code lost}).
     */
    boolean stalled(long token) {
        long deadline = progressDeadlineNanos;
        if (deadline <= 0 || System.nanoTime() - lastProgress < deadline) {
            return false;
        }
        lose(token, stallCause(token));
        return true;
    }

    /**
     * STALLED, unless the renew deadline passed as well (a paused process wakes past both): then the renewals failed
     * first, and RENEW_FAILED says so.
     */
    private LeaseLoss stallCause(long token) {
        Grant g = grant.get();
        return g != null && g.token() == token && g.expiredAt(System.nanoTime())
                ? LeaseLoss.RENEW_FAILED
                : LeaseLoss.STALLED;
    }

    /**
     * Ends the grant of {@code token}, if it is the current one: withdrawn at once, then the listeners are told, then
     * the {@link AfterLoss} runs (on the event thread).
     *
     * @return whether this call ended it
     */
    synchronized boolean lose(long token, LeaseLoss cause) {
        Grant g = grant.get();
        if (g == null || g.token() != token) {
            return false;
        }
        grant.set(null);
        events.lost(token, cause, () -> afterLoss.lost(token, cause));
        return true;
    }

    /**
     * No grant from now on; the current one, if any, is lost with CLOSED.
     *
     * @return the token of the grant that was ended, or 0 if there was none
     */
    synchronized long close() {
        closed = true;
        Grant g = grant.get();
        if (g == null) {
            return 0;
        }
        lose(g.token(), LeaseLoss.CLOSED);
        return g.token();
    }

    /** On the event thread: at the deadline of the current grant of {@code token}, it is lost. */
    private void checkDeadline(long token) {
        Grant g = grant.get();
        if (g == null || g.token() != token) {
            return;
        }
        long left = g.deadlineNanos() - System.nanoTime();
        if (left > 0) {
            events.schedule(() -> checkDeadline(token), left);
        } else {
            lose(token, LeaseLoss.RENEW_FAILED);
        }
    }

    /** On the event thread: when the grant of {@code token} may have gone a progress deadline without progress. */
    private void checkProgress(long token) {
        Grant g = grant.get();
        if (g == null || g.token() != token) {
            return;
        }
        long idle = System.nanoTime() - lastProgress;
        long deadline = progressDeadlineNanos;
        if (idle < deadline) {
            events.schedule(() -> checkProgress(token), deadline - idle);
        } else {
            lose(token, stallCause(token));
        }
    }
}
