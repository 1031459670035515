package dev.leasehold.scenarios.incidents;

import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedWork;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.StoreException;
import java.time.Duration;

/**
 * The scenario workers' calls through a {@link FenceGate}: a call whose failure the store calls
 * {@linkplain StoreException#retryable() retryable} (nothing of it was kept) is made again, at most {@link #ATTEMPTS}
 * times, with a short back-off; each retry is told to the caller, for the timeline. A stale token, a failure that is
 * not retryable (an unknown commit outcome among them), or the last attempt's failure is thrown.
 *
 * <p>Why: the {@code partitioned-billing} run that waited 90 s. A new leader's {@link FenceGate#advance} waits for
 * the mark's row lock, which an old leader frozen inside a gate transaction ({@code kill -STOP}) holds until the
 * database ends its idle transaction ({@link StoreConfig#idleInTransactionTimeout()}); an attempt may fail with a lock
 * timeout (SQLState 55P03) meanwhile, and the worker made none after it. The frozen leader, once thawed, gets a
 * retryable failure for the write the database ended; made again, it meets the new mark and is refused as stale, as
 * the scenario expects. Stateless and thread-safe.
 */
public final class RetryingGate {

    /**
     * The idle bound of the scenarios' gates: their work is one INSERT, so 5 s is ample, and a takeover behind a
     * frozen child waits no longer than that (the default, 30 s, leaves room for remote calls in the work).
     */
    static final Duration IDLE_BOUND = Duration.ofSeconds(5);

    /** Attempts per call: with the default lock timeout (5 s), several times {@link #IDLE_BOUND}. */
    public static final int ATTEMPTS = 6;

    private static final long FIRST_BACK_OFF_MS = 100;
    private static final long MAX_BACK_OFF_MS = 1_000;

    /** Told before each retry. */
    @FunctionalInterface
    public interface OnRetry {
        /**
         * @param text what failed and that it is retried, one line for a timeline
         */
        void retrying(String text);
    }

    /** A call through the gate. */
    @FunctionalInterface
    private interface Call {
        void run();
    }

    private RetryingGate() {}

    /** The scenarios' store configuration for {@code prefix}: the defaults, with {@link #IDLE_BOUND}. */
    public static StoreConfig config(String prefix) {
        return StoreConfig.defaults().withTablePrefix(prefix).withIdleInTransactionTimeout(IDLE_BOUND);
    }

    /**
     * {@link FenceGate#advance}, retried.
     *
     * @throws InterruptedException if interrupted while backing off
     */
    public static void advance(FenceGate gate, String resource, long token, OnRetry onRetry)
            throws InterruptedException {
        retried(() -> gate.advance(resource, token), "advance of " + resource + " to " + token, onRetry);
    }

    /**
     * {@link FenceGate#write}, retried.
     *
     * @throws InterruptedException if interrupted while backing off
     */
    public static void write(FenceGate gate, String resource, long token, FencedWork work, OnRetry onRetry)
            throws InterruptedException {
        retried(() -> gate.write(resource, token, work), "write to " + resource + " with token " + token, onRetry);
    }

    private static void retried(Call call, String what, OnRetry onRetry) throws InterruptedException {
        long backOff = FIRST_BACK_OFF_MS;
        for (int attempt = 1; ; attempt++) {
            try {
                call.run();
                return;
            } catch (StoreException e) {
                if (!e.retryable() || attempt >= ATTEMPTS) {
                    throw e;
                }
                onRetry.retrying(describe(what, attempt, e));
            }
            Thread.sleep(backOff); // the back-off between attempts, not a synchronisation
            backOff = Math.min(backOff * 2, MAX_BACK_OFF_MS);
        }
    }

    /** One line for a timeline: which call failed, why in short, and that it is retried. */
    static String describe(String what, int attempt, StoreException failure) {
        String state = failure.sqlException() == null
                ? "retryable"
                : "SQLState " + failure.sqlException().getSQLState();
        return what + " failed (" + state + ", attempt " + attempt + " of " + ATTEMPTS + "): retrying";
    }
}
