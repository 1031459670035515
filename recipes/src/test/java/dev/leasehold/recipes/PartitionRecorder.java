package dev.leasehold.recipes;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Records what one member's FencedPartitionListener is told, and on which thread; checks, with the group's other
 * recorders, that no partition has two holders at once (as the listeners see it: acquired to lost).
 */
final class PartitionRecorder implements FencedPartitionListener {

    record Event(int partition, FencingToken token, LossCause cause, String thread) {
        boolean acquired() {
            return cause == null;
        }
    }

    /** Who holds each partition across a group of recorders, as told; every overlap is recorded. */
    static final class Holders {
        private final Map<Integer, String> holder = new TreeMap<>();
        private final Map<Integer, Long> lastToken = new TreeMap<>();
        private final java.util.Set<String> excused = new java.util.HashSet<>();
        final List<String> violations = new ArrayList<>();

        /**
         * {@code member}'s session is about to end: another member may take its partitions before its lost(LOST)
         * returned (the hand-over rule allows it; the fence covers it).
         */
        synchronized void excuse(String member) {
            excused.add(member);
        }

        synchronized void acquired(String member, int p, FencingToken token) {
            String previous = holder.put(p, member);
            if (previous != null && !excused.contains(previous)) {
                violations.add("partition " + p + ": " + member + " acquired while " + previous + " held it");
            }
            Long last = lastToken.put(p, token.value());
            if (last != null && last > token.value()) {
                violations.add("partition " + p + ": token went back from " + last + " to " + token.value());
            }
        }

        synchronized void lost(String member, int p) {
            holder.remove(p, member);
        }
    }

    private final String member;
    private final Holders holders;
    private final List<Event> events = new ArrayList<>();
    private final Map<Integer, FencingToken> held = new TreeMap<>();
    /** Set to block lost() until counted down: stands for a member still stopping its partition's work. */
    volatile CountDownLatch lostGate;

    PartitionRecorder(String member, Holders holders) {
        this.member = member;
        this.holders = holders;
    }

    /** How many lost() calls began (before the gate). */
    final java.util.concurrent.atomic.AtomicInteger lostEntered = new java.util.concurrent.atomic.AtomicInteger();

    @Override
    public void acquired(int partition, FencingToken token) {
        holders.acquired(member, partition, token);
        synchronized (this) {
            if (held.containsKey(partition)) {
                holders.violations.add(member + " acquired partition " + partition + " with " + token
                        + " before it was told it lost " + held.get(partition));
            }
            held.put(partition, token);
            events.add(new Event(partition, token, null, Thread.currentThread().getName()));
            notifyAll();
        }
    }

    @Override
    public void lost(int partition, FencingToken token, LossCause cause) {
        lostEntered.incrementAndGet();
        CountDownLatch gate = lostGate;
        if (gate != null) {
            try {
                gate.await(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        holders.lost(member, partition);
        synchronized (this) {
            held.remove(partition, token);
            events.add(new Event(partition, token, cause, Thread.currentThread().getName()));
            notifyAll();
        }
    }

    synchronized Map<Integer, FencingToken> held() {
        return new TreeMap<>(held);
    }

    synchronized List<Event> events() {
        return new ArrayList<>(events);
    }

    synchronized List<Event> losses(LossCause cause) {
        return events.stream().filter(e -> e.cause() == cause).toList();
    }

    /** Waits (on the recorder's own notifications) until what it was told satisfies {@code condition}. */
    synchronized void await(String what, Predicate<PartitionRecorder> condition) throws InterruptedException {
        long deadline = System.nanoTime() + Zk.WAIT.toNanos();
        while (!condition.test(this)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError(
                        member + ": " + what + " not within " + Zk.WAIT + "; held " + held + ", events " + events);
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    void awaitHeld(int count) throws InterruptedException {
        await("holding " + count + " partitions", r -> r.held.size() == count);
    }
}
