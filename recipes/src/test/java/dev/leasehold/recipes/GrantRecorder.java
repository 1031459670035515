package dev.leasehold.recipes;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Records what a FencedLeaderListener is told, and on which thread, for tests to wait on. */
final class GrantRecorder implements FencedLeaderListener {

    record Event(boolean acquired, FencingToken token, String thread) {}

    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();

    @Override
    public void leadershipAcquired(FencingToken token) {
        events.add(new Event(true, token, Thread.currentThread().getName()));
    }

    @Override
    public void leadershipLost(FencingToken token) {
        events.add(new Event(false, token, Thread.currentThread().getName()));
    }

    Event next(Duration timeout) throws InterruptedException {
        Event event = events.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (event == null) {
            throw new AssertionError("no leadership event within " + timeout);
        }
        return event;
    }

    FencingToken nextAcquired() throws InterruptedException {
        Event event = next(Zk.WAIT);
        if (!event.acquired()) {
            throw new AssertionError("expected leadershipAcquired, got leadershipLost(" + event.token() + ")");
        }
        return event.token();
    }

    FencingToken nextLost() throws InterruptedException {
        Event event = next(Zk.WAIT);
        if (event.acquired()) {
            throw new AssertionError("expected leadershipLost, got leadershipAcquired(" + event.token() + ")");
        }
        return event.token();
    }

    boolean isEmpty() {
        return events.isEmpty();
    }
}
