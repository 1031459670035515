package dev.leasehold.shedlock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler for ShedLock's {@code KeepAliveLockProvider} whose periodic extensions the test runs itself ({@link
 * #extendNow}), on the test's thread, instead of every {@code lockAtMostFor / 2} (at least 15 s). The futures it
 * hands out are real ones that never fire, so the keep-alive's cancel works as usual.
 */
final class ManualKeepAlive extends ScheduledThreadPoolExecutor {

    private final List<Runnable> extensions = new ArrayList<>();

    ManualKeepAlive() {
        super(1);
    }

    @Override
    public synchronized ScheduledFuture<?> scheduleAtFixedRate(
            Runnable command, long initialDelay, long period, TimeUnit unit) {
        extensions.add(command);
        return super.schedule(() -> {}, 1, TimeUnit.DAYS);
    }

    /** Runs every keep-alive extension scheduled so far, now. */
    synchronized void extendNow() {
        extensions.forEach(Runnable::run);
    }
}
