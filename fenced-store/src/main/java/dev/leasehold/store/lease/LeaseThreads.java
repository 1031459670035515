package dev.leasehold.store.lease;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The election's single-thread schedulers: daemon threads, named after the election. Stateless, thread-safe. */
final class LeaseThreads {

    private static final AtomicInteger COUNT = new AtomicInteger();

    private LeaseThreads() {}

    /**
     * One thread, started on demand and ended after 2 s without work; delayed tasks are dropped at shutdown (queued
     * ones still run), cancelled ones leave the queue at once.
     */
    static ScheduledThreadPoolExecutor single(String name) {
        int n = COUNT.incrementAndGet();
        ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, name + "-" + n);
            thread.setDaemon(true);
            return thread;
        });
        pool.setRemoveOnCancelPolicy(true);
        pool.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        pool.setKeepAliveTime(2, TimeUnit.SECONDS);
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }
}
