package dev.leasehold.store.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * What the participants of a test election were told, in one order for all of them (the order the calls happened),
 * with a way to wait for an event. Thread-safe.
 */
final class LeaseLog {

    /** One call: who was told, acquired or lost, with which token and cause (null for acquired), on which thread. */
    record Event(String who, boolean acquired, long token, LeaseLoss cause, String thread) {
        @Override
        public String toString() {
            return who + (acquired ? " acquired " + token : " lost " + token + " " + cause);
        }
    }

    private final List<Event> events = new ArrayList<>();

    /** A listener that records as {@code who}. */
    LeaseListener listener(String who) {
        return new LeaseListener() {
            @Override
            public void acquired(long token) {
                add(new Event(who, true, token, null, Thread.currentThread().getName()));
            }

            @Override
            public void lost(long token, LeaseLoss cause) {
                add(new Event(who, false, token, cause, Thread.currentThread().getName()));
            }
        };
    }

    synchronized void add(Event event) {
        events.add(event);
        notifyAll();
    }

    synchronized List<Event> all() {
        return List.copyOf(events);
    }

    /** Waits for the first event that matches; fails the test (AssertionError) after 20 s. */
    synchronized Event await(Predicate<Event> match, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            for (Event e : events) {
                if (match.test(e)) {
                    return e;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("never happened: " + what + "; events: " + events);
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    Event acquired(String who) throws InterruptedException {
        return await(e -> e.who().equals(who) && e.acquired(), who + " acquired");
    }

    Event lost(String who) throws InterruptedException {
        return await(e -> e.who().equals(who) && !e.acquired(), who + " lost");
    }

    /** The position of {@code event} in the order of all calls. */
    synchronized int indexOf(Event event) {
        return events.indexOf(event);
    }

    static List<Event> of(List<Event> events, String who) {
        List<Event> mine = new ArrayList<>();
        for (Event e : events) {
            if (e.who().equals(who)) {
                mine.add(e);
            }
        }
        return mine;
    }
}
