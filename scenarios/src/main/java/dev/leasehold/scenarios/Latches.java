package dev.leasehold.scenarios;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Waits on the events that order a scenario's decisive steps; a missing event fails the scenario clearly. */
public final class Latches {

    private Latches() {}

    public static void await(CountDownLatch latch, long timeoutMillis, String what) throws InterruptedException {
        if (!latch.await(timeoutMillis, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("timed out after " + timeoutMillis + " ms waiting until " + what);
        }
    }
}
