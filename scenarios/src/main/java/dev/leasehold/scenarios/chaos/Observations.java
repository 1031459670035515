package dev.leasehold.scenarios.chaos;

import dev.leasehold.testkit.HistoryChecker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the participants reported during a campaign: grants, acknowledged writes, and the time each participant
 * believed it led. The nemesis reads it to choose victims and to time a paused leader's release. Thread-safe: every
 * report and every wait goes through one monitor.
 */
final class Observations {

    /** A grant the participant still believes in. */
    private record OpenBelief(String election, long token, long sinceNanos) {}

    /** A participant's grant: the key of "has had a write acknowledged". */
    private record GrantKey(String participant, long token) {}

    /** Everything reported, copied at one instant. */
    record Snapshot(
            List<HistoryChecker.Grant> grants, List<HistoryChecker.Ack> acks, List<HistoryChecker.Belief> beliefs) {}

    private final Object lock = new Object();
    private final List<HistoryChecker.Grant> grants = new ArrayList<>();
    private final List<HistoryChecker.Ack> acks = new ArrayList<>();
    private final List<HistoryChecker.Belief> beliefs = new ArrayList<>();
    private final Map<String, List<OpenBelief>> openBeliefs = new HashMap<>();
    private final Set<GrantKey> writtenWith = new HashSet<>();
    /** Each grant's latest acknowledged write (its ack time): what {@link #awaitSettled} waits for. */
    private final Map<GrantKey, Long> lastAck = new HashMap<>();

    /** How many refusals of one participant are kept between two {@link #refusalsOf} calls. */
    static final int MAX_REFUSALS = 5;

    /** What refused each participant's writes, in order (the first few), since {@link #refusalsOf} was last asked. */
    private final Map<String, List<String>> refusals = new HashMap<>();

    private final AtomicInteger staleRejected = new AtomicInteger();
    private final AtomicInteger databaseErrors = new AtomicInteger();

    /** The reports of one participant, as {@link Member} and {@link ChaosChild#replay} make them. */
    Member.Events eventsOf(String participant, String election) {
        return new Member.Events() {
            @Override
            public void granted(long token, long session, long atNanos) {
                Observations.this.granted(participant, election, token, session, atNanos);
            }

            @Override
            public void acknowledged(String resource, long token, long seq, long sentNanos, long ackedNanos) {
                Observations.this.acknowledged(participant, election, resource, token, seq, sentNanos, ackedNanos);
            }

            @Override
            public void staleRejected(long token) {
                staleRejected.incrementAndGet();
                refused(participant, "the fence (StaleTokenException) with token " + token);
            }

            @Override
            public void databaseError(String what) {
                databaseErrors.incrementAndGet();
                refused(participant, "a database error, " + what);
            }

            @Override
            public void ended(long token, long atNanos) {
                Observations.this.ended(participant, election, token, atNanos);
            }
        };
    }

    private void granted(String participant, String election, long token, long session, long at) {
        synchronized (lock) {
            grants.add(new HistoryChecker.Grant(at, election, participant, token, session));
            openBeliefs.computeIfAbsent(participant, k -> new ArrayList<>()).add(new OpenBelief(election, token, at));
            lock.notifyAll();
        }
    }

    private void ended(String participant, String election, long token, long now) {
        synchronized (lock) {
            Iterator<OpenBelief> open =
                    openBeliefs.getOrDefault(participant, new ArrayList<>()).iterator();
            while (open.hasNext()) {
                OpenBelief belief = open.next();
                if (belief.token() == token && belief.election().equals(election)) {
                    open.remove();
                    beliefs.add(new HistoryChecker.Belief(election, participant, token, belief.sinceNanos(), now));
                    lock.notifyAll();
                    return;
                }
            }
        }
    }

    private void acknowledged(
            String participant,
            String election,
            String resource,
            long token,
            long seq,
            long sentNanos,
            long ackedNanos) {
        synchronized (lock) {
            // with its election and resource: a member's partitions can share one token (one multi of creates, one
            // czxid) and each numbers its writes from 1, so rule 4 must look for the write on its own resource
            acks.add(new HistoryChecker.Ack(participant, token, seq, sentNanos, ackedNanos, election, resource));
            GrantKey key = new GrantKey(participant, token);
            writtenWith.add(key);
            lastAck.merge(key, ackedNanos, Math::max);
            lock.notifyAll(); // awaitSettled waits for a write after a given time, not only a grant's first
        }
    }

    /** A participant that is gone (its JVM killed, or closed) believes nothing any more, in any election. */
    void endAll(String participant) {
        long now = System.nanoTime();
        synchronized (lock) {
            List<OpenBelief> open = openBeliefs.getOrDefault(participant, new ArrayList<>());
            for (OpenBelief belief : open) {
                beliefs.add(new HistoryChecker.Belief(
                        belief.election(), participant, belief.token(), belief.sinceNanos(), now));
            }
            open.clear();
            lock.notifyAll();
        }
    }

    private void refused(String participant, String by) {
        synchronized (lock) {
            List<String> mine = refusals.computeIfAbsent(participant, k -> new ArrayList<>());
            if (mine.size() < MAX_REFUSALS) { // bounded: a long campaign meets thousands of database errors
                mine.add(by);
            }
        }
    }

    /**
     * What refused {@code participant}'s writes since the last call (the fence, or a database error with its SQLState
     * and message), in order, and forgets them: the nemesis asks once before a release and once after.
     */
    List<String> refusalsOf(String participant) {
        synchronized (lock) {
            List<String> mine = refusals.remove(participant);
            return mine == null ? List.of() : mine;
        }
    }

    boolean leading(String participant) {
        synchronized (lock) {
            return !openBeliefs.getOrDefault(participant, List.of()).isEmpty();
        }
    }

    /** The elections in which {@code participant} believes it leads now. */
    Set<String> electionsLedBy(String participant) {
        synchronized (lock) {
            Set<String> led = new HashSet<>();
            openBeliefs.getOrDefault(participant, List.of()).forEach(b -> led.add(b.election()));
            return led;
        }
    }

    int grantCount() {
        synchronized (lock) {
            return grants.size();
        }
    }

    int staleRejected() {
        return staleRejected.get();
    }

    int databaseErrors() {
        return databaseErrors.get();
    }

    /** Waits, at most {@code timeout}, until {@code elections} distinct elections have each granted once. */
    void awaitLeadersIn(int elections, long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lock) {
            while (grants.stream()
                            .map(HistoryChecker.Grant::election)
                            .distinct()
                            .count()
                    < elections) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return; // the checker will report the election as leaderless from the start
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
        }
    }

    /**
     * Waits, at most {@code timeout}, until in each of {@code elections} another participant than {@code victim},
     * granted after the first {@code grantsBefore} grants, has had a write acknowledged with that grant.
     */
    void awaitWriteElsewhere(Set<String> elections, String victim, int grantsBefore, long timeout, TimeUnit unit)
            throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lock) {
            while (!elections.stream().allMatch(election -> grants.subList(grantsBefore, grants.size()).stream()
                    .anyMatch(g -> g.election().equals(election)
                            && !g.participant().equals(victim)
                            && writtenWith.contains(new GrantKey(g.participant(), g.token()))))) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
        }
    }

    /**
     * Waits, at most {@code timeout}, until in one of {@code elections} another participant than {@code victim} was
     * granted after the first {@code grantsBefore} grants.
     *
     * @return that participant, or empty if none was granted in time
     */
    Optional<String> awaitGrantElsewhere(
            Set<String> elections, String victim, int grantsBefore, long timeout, TimeUnit unit)
            throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lock) {
            while (true) {
                Optional<String> successor = grants.subList(grantsBefore, grants.size()).stream()
                        .filter(g -> elections.contains(g.election())
                                && !g.participant().equals(victim))
                        .map(HistoryChecker.Grant::participant)
                        .findFirst();
                long left = deadline - System.nanoTime();
                if (successor.isPresent() || left <= 0) {
                    return successor;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
        }
    }

    /**
     * Waits, at most {@code timeout}, until every one of {@code elections} is settled: exactly one participant
     * believes it leads there, and it has had a write acknowledged with that grant at or after {@code afterNanos}.
     *
     * @return whether they settled in time (if not, the campaign simply ends later, at the timeout)
     */
    boolean awaitSettled(List<String> elections, long afterNanos, long timeout, TimeUnit unit)
            throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lock) {
            while (!elections.stream().allMatch(election -> settled(election, afterNanos))) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            return true;
        }
    }

    /** Called under the lock: one belief in {@code election}, and a write with it acknowledged since then. */
    private boolean settled(String election, long afterNanos) {
        List<GrantKey> believers = new ArrayList<>();
        openBeliefs.forEach((participant, open) -> open.stream()
                .filter(b -> b.election().equals(election))
                .forEach(b -> believers.add(new GrantKey(participant, b.token()))));
        return believers.size() == 1 && lastAck.getOrDefault(believers.get(0), Long.MIN_VALUE) - afterNanos >= 0;
    }

    /** Waits, at most {@code timeout}, until {@code participant} believes it leads in no election any more. */
    void awaitNotLeading(String participant, long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lock) {
            while (!openBeliefs.getOrDefault(participant, List.of()).isEmpty()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
        }
    }

    Snapshot snapshot() {
        synchronized (lock) {
            return new Snapshot(List.copyOf(grants), List.copyOf(acks), List.copyOf(beliefs));
        }
    }
}
