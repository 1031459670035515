package dev.leasehold.testkit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks a fault campaign's history against the fenced-mutex model: what the history table committed (in commit
 * order) and what each participant believed and saw acknowledged.
 *
 * <ol>
 *   <li>accepted tokens never decrease in commit order, per resource;</li>
 *   <li>no write with token t committed after a commit with a higher token (per resource);</li>
 *   <li>each token belongs to exactly one participant and one ZooKeeper session;</li>
 *   <li>every write a participant saw acknowledged is in the table, on its own resource (nothing acknowledged was
 *       lost): an acknowledgement that names its resource ({@link Ack#resource()}) needs a row of the same
 *       participant, token and number on that resource; a row on another resource (one token granted in several
 *       elections, a member's partitions, each numbering its writes from 1) does not stand for it. One that names no
 *       resource is judged by a count: a write acknowledged in n elections ({@link Ack#election()}) has rows on at
 *       least n resources;</li>
 *   <li>successive leadership grants of one election carry strictly increasing tokens (a grant again on the same
 *       node after a reconnect, same participant, session and token, is the same grant);</li>
 *   <li>no write is acknowledged that was sent after a write with a higher token of the same election had been
 *       acknowledged: once the store acknowledged a write with token 34, its mark is at least 34, and a write with 33
 *       sent later must be refused. A store that accepts it has lost the acknowledged mark (a failover to an
 *       asynchronous standby): the stale write this rule names may be gone from the table later, so the rule reads
 *       the participants' acknowledgements and their times ({@link Ack#sentNanos()}, {@link Ack#ackedNanos()}), not
 *       the table. Acknowledgements without times (0) are not judged by it.</li>
 * </ol>
 * Overlapping beliefs of leadership are expected: they are counted, not failures. The longest time without a
 * leader is the longest in any election.
 *
 * <p>Feed it what your own fenced code committed ({@link HistoryTable#read}) and what its participants saw (grants,
 * acknowledgements, beliefs, stamped with {@link System#nanoTime()}). Thread-safe: it keeps no state.
 */
public final class HistoryChecker {

    /** A committed row of the history table; {@code id} orders rows by commit per resource. */
    public record Committed(long id, String resource, String participant, long token, long seq, long session) {}

    /** A grant as the participant saw it, in the order grants were recorded, in one election. */
    public record Grant(long atNanos, String election, String participant, long token, long session) {}

    /**
     * A write the participant saw acknowledged (its transaction committed, or a read-back found it after a commit
     * whose outcome was unknown).
     *
     * @param participant who wrote
     * @param token       with which token
     * @param seq         the write's sequence number in its grant
     * @param sentNanos   {@link System#nanoTime()} just before the write was sent; 0 if unknown
     * @param ackedNanos  {@link System#nanoTime()} once it was known to be committed; 0 if unknown
     * @param election    the election (and so the resource) the write was made for; null for the election of the
     *                    participant's grant with that token. Give it where one token is granted in several elections:
     *                    {@code FencedPartitions} creates a member's partition nodes in one multi, so they share one
     *                    czxid, and without it rule 6 would judge one partition's writes against another's.
     * @param resource    the resource the write was made on, as in {@link Committed#resource()}: rule 4 looks for the
     *                    write among that resource's rows only; null if unknown (then a row of the write on any
     *                    resource counts, one per election the write was acknowledged in)
     */
    public record Ack(
            String participant,
            long token,
            long seq,
            long sentNanos,
            long ackedNanos,
            String election,
            String resource) {
        /**
         * An acknowledgement without times: rule 6 does not judge it.
         *
         * @param participant who wrote
         * @param token       with which token
         * @param seq         the write's sequence number in its grant
         */
        public Ack(String participant, long token, long seq) {
            this(participant, token, seq, 0, 0, null, null);
        }

        /**
         * An acknowledgement in the election of the participant's grant with that token.
         *
         * @param participant who wrote
         * @param token       with which token
         * @param seq         the write's sequence number in its grant
         * @param sentNanos   {@link System#nanoTime()} just before the write was sent; 0 if unknown
         * @param ackedNanos  {@link System#nanoTime()} once it was known to be committed; 0 if unknown
         */
        public Ack(String participant, long token, long seq, long sentNanos, long ackedNanos) {
            this(participant, token, seq, sentNanos, ackedNanos, null, null);
        }

        /**
         * An acknowledgement in a named election, on a resource rule 4 does not know: a row of the write on any
         * resource counts.
         *
         * @param participant who wrote
         * @param token       with which token
         * @param seq         the write's sequence number in its grant
         * @param sentNanos   {@link System#nanoTime()} just before the write was sent; 0 if unknown
         * @param ackedNanos  {@link System#nanoTime()} once it was known to be committed; 0 if unknown
         * @param election    the election the write was made for; null for the election of the participant's grant
         *                    with that token
         */
        public Ack(String participant, long token, long seq, long sentNanos, long ackedNanos, String election) {
            this(participant, token, seq, sentNanos, ackedNanos, election, null);
        }

        boolean timed() {
            return sentNanos != 0 && ackedNanos != 0;
        }
    }

    /** A period during which a participant believed it led, in one election. */
    public record Belief(String election, String participant, long token, long fromNanos, long toNanos) {}

    /** A stretch of {@code nanos} from {@code fromNanos} on in which nobody of {@code election} believed it led. */
    public record Gap(String election, long fromNanos, long nanos) {}

    /** The verdict: each violation as one line naming its rule, and what is counted rather than judged. */
    public record Result(List<String> violations, int overlappingBeliefs, Gap longestWithoutLeader) {
        /** @return whether no rule was broken */
        public boolean ok() {
            return violations.isEmpty();
        }

        /** @return the longest time without a leader, in nanoseconds */
        public long maxNanosWithoutLeader() {
            return longestWithoutLeader.nanos();
        }
    }

    /** A row that committed after a commit with a higher token on its resource (rule 2): a stale write landed. */
    public record StaleCommit(Committed row, long higherToken) {}

    private HistoryChecker() {}

    /**
     * Rule 2 alone.
     *
     * @param committed the committed rows, in any order
     * @return the rows, in commit order, that committed after a commit with a higher token on their resource
     */
    public static List<StaleCommit> staleCommits(List<Committed> committed) {
        List<Committed> ordered = new ArrayList<>(committed);
        ordered.sort(Comparator.comparingLong(Committed::id));
        List<StaleCommit> stale = new ArrayList<>();
        Map<String, Long> highest = new HashMap<>();
        for (Committed row : ordered) {
            long max = highest.merge(row.resource(), row.token(), Math::max);
            if (row.token() < max) {
                stale.add(new StaleCommit(row, max));
            }
        }
        return stale;
    }

    /**
     * Checks the six rules; the elections are those named by the beliefs.
     *
     * @param committed what the history table holds
     * @param grants    every grant the participants reported
     * @param acks      every write a participant saw acknowledged
     * @param beliefs   every period in which a participant believed it led
     * @param fromNanos where the time without a leader starts to count ({@link System#nanoTime()})
     * @param toNanos   where it stops counting
     * @return the violations, and what is counted
     */
    public static Result check(
            List<Committed> committed,
            List<Grant> grants,
            List<Ack> acks,
            List<Belief> beliefs,
            long fromNanos,
            long toNanos) {
        return check(
                committed,
                grants,
                acks,
                beliefs,
                beliefs.stream().map(Belief::election).distinct().toList(),
                fromNanos,
                toNanos);
    }

    /**
     * Checks the six rules.
     *
     * @param committed what the history table holds
     * @param grants    every grant the participants reported
     * @param acks      every write a participant saw acknowledged
     * @param beliefs   every period in which a participant believed it led
     * @param elections every election of the campaign: one in which nobody ever believed it led is leaderless for
     *                  the whole of [from, to)
     * @param fromNanos where the time without a leader starts to count ({@link System#nanoTime()})
     * @param toNanos   where it stops counting
     * @return the violations, and what is counted
     */
    public static Result check(
            List<Committed> committed,
            List<Grant> grants,
            List<Ack> acks,
            List<Belief> beliefs,
            List<String> elections,
            long fromNanos,
            long toNanos) {
        List<String> violations = new ArrayList<>();
        List<Committed> ordered = new ArrayList<>(committed);
        ordered.sort(Comparator.comparingLong(Committed::id));

        // 1 and 2: per resource, in commit order.
        Map<Committed, Long> stale = new HashMap<>();
        staleCommits(ordered).forEach(s -> stale.put(s.row(), s.higherToken()));
        Map<String, Long> previous = new HashMap<>();
        for (Committed row : ordered) {
            Long before = previous.put(row.resource(), row.token());
            if (before != null && row.token() < before) {
                violations.add("rule 1: on " + row.resource() + " token " + row.token() + " (row " + row.id()
                        + ") committed right after token " + before);
            }
            Long max = stale.get(row);
            if (max != null) {
                violations.add("rule 2: on " + row.resource() + " a write with token " + row.token() + " (row "
                        + row.id() + ", " + row.participant() + ") committed after a commit with token " + max);
            }
        }

        // 3: one owner per token, across rows and grants.
        Map<Long, Set<String>> owners = new HashMap<>();
        for (Committed row : ordered) {
            owners.computeIfAbsent(row.token(), t -> new HashSet<>())
                    .add(row.participant() + "/0x" + Long.toHexString(row.session()));
        }
        for (Grant grant : grants) {
            owners.computeIfAbsent(grant.token(), t -> new HashSet<>())
                    .add(grant.participant() + "/0x" + Long.toHexString(grant.session()));
        }
        owners.forEach((token, who) -> {
            if (who.size() > 1) {
                violations.add("rule 3: token " + token + " belongs to " + who.size() + " owners: " + who);
            }
        });

        // 4: nothing acknowledged was lost.
        violations.addAll(lostAcknowledged(ordered, acks));

        // 5: successive grants of each election strictly increase, in the order they were granted (stamped where the
        // recipe handed them over, which may differ from the order their reports arrived in).
        List<Grant> granted = new ArrayList<>(grants);
        granted.sort(Comparator.comparingLong(Grant::atNanos));
        Map<String, Grant> lastOf = new HashMap<>();
        for (Grant grant : granted) {
            Grant last = lastOf.put(grant.election(), grant);
            if (last != null) {
                boolean sameGrant = grant.token() == last.token()
                        && grant.participant().equals(last.participant())
                        && grant.session() == last.session();
                if (!sameGrant && grant.token() <= last.token()) {
                    violations.add("rule 5: in " + grant.election() + " the grant of token " + grant.token() + " to "
                            + grant.participant() + " came after a grant of token " + last.token() + " to "
                            + last.participant());
                }
            }
        }
        violations.addAll(staleAcknowledged(grants, acks));
        int overlapping = 0;
        Gap longest = new Gap(
                elections.isEmpty() ? "any" : elections.get(0),
                fromNanos,
                elections.isEmpty() ? toNanos - fromNanos : 0);
        for (String election : elections) {
            List<Belief> mine =
                    beliefs.stream().filter(b -> b.election().equals(election)).toList();
            overlapping += overlaps(mine);
            Gap gap = longestGap(election, mine, fromNanos, toNanos);
            if (gap.nanos() > longest.nanos()) {
                longest = gap;
            }
        }
        return new Result(violations, overlapping, longest);
    }

    /**
     * Rule 4: each acknowledged write (its participant, token and number) in the table. One that names its resource
     * must be among that resource's rows: a row of the same participant, token and number on another resource (a
     * partition sharing the token, numbering its writes from 1 too) does not stand for it. One without a resource is
     * judged by a count: at least as many rows of it, on distinct resources, as elections it was acknowledged in,
     * besides the resources named for it; one whose election a resource-naming acknowledgement of the same write also
     * names (or that names no election, where some do name a resource) is that write seen again. One line per lost
     * write.
     */
    static List<String> lostAcknowledged(List<Committed> committed, List<Ack> acks) {
        Map<String, Set<String>> rowsOf = new HashMap<>();
        for (Committed row : committed) {
            rowsOf.computeIfAbsent(row.participant() + "/" + row.token() + "/" + row.seq(), k -> new TreeSet<>())
                    .add(row.resource());
        }
        Map<String, List<Ack>> acksOf = new LinkedHashMap<>();
        for (Ack ack : acks) {
            acksOf.computeIfAbsent(ack.participant() + "/" + ack.token() + "/" + ack.seq(), k -> new ArrayList<>())
                    .add(ack);
        }
        List<String> violations = new ArrayList<>();
        acksOf.forEach((write, mine) -> {
            Set<String> rows = rowsOf.getOrDefault(write, Set.of());
            Ack first = mine.get(0);
            String what = "rule 4: " + first.participant() + "'s acknowledged write #" + first.seq() + " with token "
                    + first.token();
            Set<String> resources = new TreeSet<>();
            Set<String> coveredElections = new HashSet<>();
            for (Ack ack : mine) {
                if (ack.resource() != null) {
                    resources.add(ack.resource());
                    coveredElections.add(ack.election());
                }
            }
            for (String resource : resources) {
                if (!rows.contains(resource)) {
                    violations.add(what + " on " + resource + " is not in the table"
                            + (rows.isEmpty() ? "" : " (rows of it are on " + rows + " only)"));
                }
            }
            // without a resource: a row anywhere, one per election, beyond the rows the named resources account for
            Set<String> elections = new TreeSet<>();
            boolean unnamed = false;
            for (Ack ack : mine) {
                if (ack.resource() == null && !coveredElections.contains(ack.election())) {
                    if (ack.election() != null) {
                        elections.add(ack.election());
                    } else if (resources.isEmpty()) {
                        unnamed = true; // the write of its token's grant: any election's
                    }
                }
            }
            int needed = Math.max(elections.size(), unnamed ? 1 : 0);
            Set<String> others = new TreeSet<>(rows);
            others.removeAll(resources);
            if (needed > 0 && others.isEmpty()) {
                violations.add(what + " is not in the table");
            } else if (needed > others.size()) {
                violations.add(what + " was acknowledged in " + elections.size() + " elections " + elections
                        + " but the table has " + others.size() + " row" + (others.size() == 1 ? "" : "s")
                        + " of it " + others + ": one election's write was lost");
            }
        });
        return violations;
    }

    /**
     * Rule 6: per election (an acknowledgement's own, else its token's grant's), the acknowledgements sent after a
     * higher token's write was acknowledged. One line per stale write.
     */
    static List<String> staleAcknowledged(List<Grant> grants, List<Ack> acks) {
        Map<String, String> electionOf = new HashMap<>();
        for (Grant grant : grants) {
            electionOf.put(grant.participant() + "/" + grant.token(), grant.election());
        }
        Map<String, List<Ack>> byElection = new HashMap<>();
        for (Ack ack : acks) {
            String election =
                    ack.election() != null ? ack.election() : electionOf.get(ack.participant() + "/" + ack.token());
            if (ack.timed() && election != null) {
                byElection.computeIfAbsent(election, e -> new ArrayList<>()).add(ack);
            }
        }
        List<String> violations = new ArrayList<>();
        byElection.forEach((election, mine) -> {
            List<Ack> byAcked = new ArrayList<>(mine);
            byAcked.sort(Comparator.comparingLong(Ack::ackedNanos));
            List<Ack> bySent = new ArrayList<>(mine);
            bySent.sort(Comparator.comparingLong(Ack::sentNanos));
            Ack highest = null; // the highest-token write acknowledged before the write in hand was sent
            int next = 0;
            for (Ack ack : bySent) {
                while (next < byAcked.size() && byAcked.get(next).ackedNanos() < ack.sentNanos()) {
                    Ack earlier = byAcked.get(next++);
                    if (highest == null || earlier.token() > highest.token()) {
                        highest = earlier;
                    }
                }
                if (highest != null && highest.token() > ack.token()) {
                    violations.add("rule 6: in " + election + " " + ack.participant() + "'s write #" + ack.seq()
                            + " with token " + ack.token() + " was accepted although it was sent "
                            + (ack.sentNanos() - highest.ackedNanos()) / 1_000_000 + " ms after "
                            + highest.participant() + "'s write #" + highest.seq() + " with token " + highest.token()
                            + " had been acknowledged (a stale write accepted: the store lost an acknowledged mark)");
                }
            }
        });
        return violations;
    }

    /** How many times a participant began to believe it led while another of its election still believed it did. */
    static int overlaps(List<Belief> beliefs) {
        int overlapping = 0;
        for (Belief b : beliefs) {
            for (Belief other : beliefs) {
                if (other != b
                        && !other.participant().equals(b.participant())
                        && other.fromNanos() < b.fromNanos()
                        && b.fromNanos() < other.toNanos()) {
                    overlapping++;
                    break;
                }
            }
        }
        return overlapping;
    }

    /** The longest stretch within [from, to) in which nobody of one election believed it led. */
    static Gap longestGap(String election, List<Belief> beliefs, long from, long to) {
        List<Belief> sorted = new ArrayList<>(beliefs);
        sorted.sort(Comparator.comparingLong(Belief::fromNanos));
        long covered = from;
        Gap longest = new Gap(election, from, 0);
        for (Belief b : sorted) {
            if (b.toNanos() <= covered) {
                continue;
            }
            long start = Math.max(b.fromNanos(), from);
            if (start > covered && Math.min(start, to) - covered > longest.nanos()) {
                longest = new Gap(election, covered, Math.min(start, to) - covered);
            }
            covered = Math.max(covered, b.toNanos());
            if (covered >= to) {
                break;
            }
        }
        if (covered < to && to - covered > longest.nanos()) {
            longest = new Gap(election, covered, to - covered);
        }
        return longest;
    }
}
