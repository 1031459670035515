package dev.leasehold.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.testkit.HistoryChecker.Ack;
import dev.leasehold.testkit.HistoryChecker.Belief;
import dev.leasehold.testkit.HistoryChecker.Committed;
import dev.leasehold.testkit.HistoryChecker.Grant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The checker itself, fed hand-made histories: a clean one passes, each broken rule is caught and named. */
class HistoryCheckerTest {

    private static final long A = 0xA;
    private static final long B = 0xB;

    /** A leads with token 5 and writes twice; B takes over with 9 and writes; A's late write was rejected. */
    private static List<Committed> clean() {
        return List.of(
                new Committed(1, "r", "a", 5, 1, A),
                new Committed(2, "r", "a", 5, 2, A),
                new Committed(3, "r", "b", 9, 1, B));
    }

    private static List<Grant> grants() {
        return List.of(new Grant(100, "e", "a", 5, A), new Grant(200, "e", "b", 9, B));
    }

    private static HistoryChecker.Result check(List<Committed> rows, List<Grant> grants, List<Ack> acks) {
        return HistoryChecker.check(rows, grants, acks, List.of(), 0, 1_000);
    }

    @Test
    void aCleanHistoryPasses() {
        HistoryChecker.Result result = check(clean(), grants(), List.of(new Ack("a", 5, 1), new Ack("b", 9, 1)));
        assertThat(result.violations()).isEmpty();
        assertThat(result.ok()).isTrue();
    }

    @Test
    void rule1And2ATokenGoingBackwardsInCommitOrder() {
        List<Committed> rows = List.of(
                new Committed(1, "r", "a", 5, 1, A),
                new Committed(2, "r", "b", 9, 1, B),
                new Committed(3, "r", "a", 5, 2, A));
        HistoryChecker.Result result = check(rows, grants(), List.of());
        assertThat(result.violations()).anyMatch(v -> v.startsWith("rule 1:")).anyMatch(v -> v.startsWith("rule 2:"));
    }

    @Test
    void rule2AStaleWriteAfterAHigherOneNotJustAfterIt() {
        List<Committed> rows = List.of(
                new Committed(1, "r", "b", 9, 1, B),
                new Committed(2, "r", "c", 12, 1, 0xC),
                new Committed(3, "r", "c", 12, 2, 0xC),
                new Committed(4, "r", "b", 9, 2, B));
        assertThat(check(rows, List.of(), List.of()).violations())
                .anyMatch(v -> v.startsWith("rule 2:") && v.contains("token 9") && v.contains("token 12"));
    }

    @Test
    void tokensOnDifferentResourcesAreJudgedApart() {
        List<Committed> rows = List.of(new Committed(1, "r1", "b", 9, 1, B), new Committed(2, "r2", "a", 5, 1, A));
        assertThat(check(rows, grants(), List.of()).violations()).isEmpty();
    }

    @Test
    void rule3ATokenWithTwoOwners() {
        List<Committed> rows = List.of(new Committed(1, "r", "a", 5, 1, A), new Committed(2, "r", "b", 5, 1, B));
        assertThat(check(rows, List.of(), List.of()).violations()).anyMatch(v -> v.startsWith("rule 3:"));
        List<Grant> twoSessions = List.of(new Grant(1, "e", "a", 5, A), new Grant(2, "e", "a", 5, 0xAA));
        assertThat(check(List.of(), twoSessions, List.of()).violations()).anyMatch(v -> v.startsWith("rule 3:"));
    }

    @Test
    void rule4AnAcknowledgedWriteThatIsMissing() {
        HistoryChecker.Result result = check(clean(), grants(), List.of(new Ack("a", 5, 3)));
        assertThat(result.violations())
                .singleElement()
                .asString()
                .startsWith("rule 4:")
                .contains("#3");
    }

    @Test
    void rule5GrantsThatDoNotIncrease() {
        List<Grant> grants = List.of(new Grant(1, "e", "a", 9, A), new Grant(2, "e", "b", 5, B));
        assertThat(check(List.of(), grants, List.of()).violations()).anyMatch(v -> v.startsWith("rule 5:"));
        List<Grant> sameAgain = List.of(new Grant(1, "e", "a", 5, A), new Grant(2, "e", "b", 5, B));
        assertThat(check(List.of(), sameAgain, List.of()).violations()).anyMatch(v -> v.startsWith("rule 5:"));
    }

    @Test
    void rule5JudgesGrantsInTheOrderTheyWereGrantedNotReported() {
        // Reports from two JVMs can arrive out of order: b's grant (at 200) was read before a's (at 100).
        List<Grant> reportedLate = List.of(new Grant(200, "e", "b", 9, B), new Grant(100, "e", "a", 5, A));
        assertThat(check(List.of(), reportedLate, List.of()).violations()).isEmpty();
        List<Grant> grantedLate = List.of(new Grant(100, "e", "b", 9, B), new Grant(200, "e", "a", 5, A));
        assertThat(check(List.of(), grantedLate, List.of()).violations())
                .singleElement()
                .asString()
                .startsWith("rule 5:")
                .contains("token 5 to a came after a grant of token 9 to b");
    }

    @Test
    void anElectionInWhichNobodyEverLedIsLeaderlessThroughout() {
        List<Belief> beliefs = List.of(new Belief("latch", "a", 5, 0, 1_000));
        HistoryChecker.Result result =
                HistoryChecker.check(List.of(), List.of(), List.of(), beliefs, List.of("latch", "selector"), 0, 1_000);
        assertThat(result.longestWithoutLeader()).isEqualTo(new HistoryChecker.Gap("selector", 0, 1_000));
    }

    @Test
    void grantsOfTwoElectionsAreJudgedApart() {
        List<Grant> grants = List.of(
                new Grant(1, "latch", "a", 9, A),
                new Grant(2, "selector", "b", 5, B),
                new Grant(3, "selector", "c", 7, 0xC));
        assertThat(check(List.of(), grants, List.of()).violations()).isEmpty();
    }

    @Test
    void theSameGrantAgainAfterAReconnectIsNoViolation() {
        List<Grant> grants =
                List.of(new Grant(1, "e", "a", 5, A), new Grant(2, "e", "a", 5, A), new Grant(3, "e", "b", 9, B));
        assertThat(check(List.of(), grants, List.of()).violations()).isEmpty();
    }

    @Test
    void overlappingBeliefsAreCountedAndGapsMeasured() {
        List<Belief> beliefs = List.of(
                new Belief("e", "a", 5, 0, 500),
                new Belief("e", "b", 9, 400, 700),
                new Belief("e", "c", 12, 900, 1_000),
                new Belief("other", "d", 3, 0, 1_000));
        HistoryChecker.Result result = HistoryChecker.check(List.of(), List.of(), List.of(), beliefs, 0, 1_000);
        assertThat(result.overlappingBeliefs()).isEqualTo(1);
        assertThat(result.longestWithoutLeader()).isEqualTo(new HistoryChecker.Gap("e", 700, 200));
        assertThat(HistoryChecker.longestGap("e", List.of(), 0, 1_000))
                .isEqualTo(new HistoryChecker.Gap("e", 0, 1_000));
        assertThat(HistoryChecker.longestGap("e", List.of(new Belief("e", "a", 5, 100, 300)), 0, 1_000))
                .as("the gap after the last belief counts")
                .isEqualTo(new HistoryChecker.Gap("e", 300, 700));
    }

    @Test
    void staleCommitsAreTheRowsThatCommittedAfterAHigherToken() {
        List<Committed> rows = List.of(
                new Committed(1, "r", "a", 5, 1, A),
                new Committed(2, "r", "b", 9, 1, B),
                new Committed(3, "r", "a", 5, 2, A),
                new Committed(4, "other", "a", 5, 3, A));
        assertThat(HistoryChecker.staleCommits(rows)).containsExactly(new HistoryChecker.StaleCommit(rows.get(2), 9));
        assertThat(HistoryChecker.staleCommits(clean())).isEmpty();
    }

    /**
     * The asynchronous failover: b's write with 9 was acknowledged at t=300; a's write with 5, sent at t=400, was
     * accepted too (the promoted standby had lost b's advance), and b's rows are gone from the table.
     */
    @Test
    void rule6AWriteAcceptedAfterAHigherTokensWriteWasAcknowledged() {
        List<Committed> afterFailover =
                List.of(new Committed(1, "r", "a", 5, 1, A), new Committed(2, "r", "a", 5, 2, A));
        List<Ack> acks =
                List.of(new Ack("a", 5, 1, 100, 110), new Ack("b", 9, 1, 290, 300), new Ack("a", 5, 2, 400, 420));

        assertThat(check(afterFailover, grants(), acks).violations())
                .anyMatch(v -> v.startsWith("rule 6:")
                        && v.contains("a's write #2 with token 5")
                        && v.contains("b's write #1 with token 9"))
                .anyMatch(v -> v.startsWith("rule 4:"));
    }

    /** A lower token's write sent before the higher one was acknowledged (it raced the advance) is no violation. */
    @Test
    void rule6AWriteSentBeforeTheHigherAcknowledgementIsNotStale() {
        List<Ack> acks = List.of(new Ack("a", 5, 1, 100, 310), new Ack("b", 9, 1, 290, 300));
        assertThat(check(clean(), grants(), acks).violations()).noneMatch(v -> v.startsWith("rule 6:"));
        List<Ack> untimed = List.of(new Ack("b", 9, 1), new Ack("a", 5, 2));
        assertThat(check(clean(), grants(), untimed).violations()).noneMatch(v -> v.startsWith("rule 6:"));
    }

    /**
     * FencedPartitions creates a member's partition nodes in one multi: its partitions share one token. b's write with
     * 9 in partition-1 says nothing about partition-2, where a (token 5) still owns the fence; b's write with 9 in
     * partition-2 does.
     */
    @Test
    void rule6JudgesEachWriteInItsOwnElectionWhenOneTokenIsGrantedInSeveral() {
        List<Grant> grants = List.of(
                new Grant(10, "partition-1", "a", 5, A),
                new Grant(10, "partition-2", "a", 5, A),
                new Grant(200, "partition-1", "b", 9, B),
                new Grant(200, "partition-2", "b", 9, B));
        List<Ack> otherPartition =
                List.of(new Ack("b", 9, 1, 290, 300, "partition-1"), new Ack("a", 5, 2, 400, 420, "partition-2"));
        assertThat(HistoryChecker.staleAcknowledged(grants, otherPartition)).isEmpty();

        List<Ack> samePartition =
                List.of(new Ack("b", 9, 1, 290, 300, "partition-2"), new Ack("a", 5, 2, 400, 420, "partition-2"));
        assertThat(HistoryChecker.staleAcknowledged(grants, samePartition))
                .singleElement()
                .asString()
                .startsWith("rule 6: in partition-2 a's write #2 with token 5");
    }
    /**
     * A member's partitions share one token (one multi, one czxid), and each partition numbers its writes from 1: two
     * acknowledged writes, one per partition, with the same participant, token and number. One row cannot stand for
     * both: the other partition's write was lost.
     */
    @Test
    void rule4CountsEachElectionsWriteWhenOneTokenIsGrantedInSeveral() {
        List<Grant> grants = List.of(new Grant(10, "partition-1", "a", 5, A), new Grant(10, "partition-2", "a", 5, A));
        List<Ack> acks =
                List.of(new Ack("a", 5, 1, 100, 110, "partition-1"), new Ack("a", 5, 1, 120, 130, "partition-2"));
        List<Committed> one = List.of(new Committed(1, "ledger-partition-1", "a", 5, 1, A));
        assertThat(check(one, grants, acks).violations())
                .singleElement()
                .asString()
                .startsWith("rule 4: a's acknowledged write #1 with token 5")
                .contains("2 elections")
                .contains("1 row");

        List<Committed> both = List.of(
                new Committed(1, "ledger-partition-1", "a", 5, 1, A),
                new Committed(2, "ledger-partition-2", "a", 5, 1, A));
        assertThat(check(both, grants, acks).violations()).isEmpty();
        // the same write acknowledged twice in one election (a commit, then a read-back) is still one write
        List<Ack> twice =
                List.of(new Ack("a", 5, 1, 100, 110, "partition-1"), new Ack("a", 5, 1, 100, 150, "partition-1"));
        assertThat(check(one, grants, twice).violations()).isEmpty();
        // a read-back's acknowledgement without an election is the same write as its election's
        List<Ack> readBack = List.of(new Ack("a", 5, 1, 100, 110, "partition-1"), new Ack("a", 5, 1));
        assertThat(check(one, grants, readBack).violations()).isEmpty();
    }

    /**
     * Two partitions share a's token 5 and each numbers its writes from 1. a's write #1 on ledger-partition-1 was
     * acknowledged and is missing; ledger-partition-2 has a row a/5/1 that nobody acknowledged there (a stray write,
     * or one whose outcome stayed unknown). The row on the other resource does not stand for the lost one.
     */
    @Test
    void rule4ChecksEachAcknowledgedWriteAgainstItsOwnResourcesRows() {
        List<Grant> grants = List.of(new Grant(10, "partition-1", "a", 5, A), new Grant(10, "partition-2", "a", 5, A));
        List<Ack> acks = List.of(new Ack("a", 5, 1, 100, 110, "partition-1", "ledger-partition-1"));
        List<Committed> elsewhere = List.of(new Committed(1, "ledger-partition-2", "a", 5, 1, A));
        assertThat(check(elsewhere, grants, acks).violations())
                .singleElement()
                .asString()
                .startsWith("rule 4: a's acknowledged write #1 with token 5 on ledger-partition-1 is not in the table")
                .contains("[ledger-partition-2]");

        // two acknowledged writes, rows on two resources, but one of them the wrong one: counting is not enough
        List<Ack> both = List.of(
                new Ack("a", 5, 1, 100, 110, "partition-1", "ledger-partition-1"),
                new Ack("a", 5, 1, 120, 130, "partition-2", "ledger-partition-2"));
        List<Committed> wrongPair = List.of(
                new Committed(1, "ledger-partition-2", "a", 5, 1, A),
                new Committed(2, "ledger-partition-3", "a", 5, 1, A));
        assertThat(check(wrongPair, grants, both).violations())
                .singleElement()
                .asString()
                .contains("on ledger-partition-1 is not in the table");

        List<Committed> own = List.of(
                new Committed(1, "ledger-partition-1", "a", 5, 1, A),
                new Committed(2, "ledger-partition-2", "a", 5, 1, A));
        assertThat(check(own, grants, both).violations()).isEmpty();
        // a read-back's acknowledgement of the same write on the same resource is the same write
        List<Ack> readBack = List.of(
                new Ack("a", 5, 1, 100, 110, "partition-1", "ledger-partition-1"),
                new Ack("a", 5, 1, 100, 150, "partition-1", "ledger-partition-1"));
        assertThat(check(own.subList(0, 1), grants, readBack).violations()).isEmpty();
    }

    /** Without a resource (hand-made histories, the older constructors) an acknowledgement is judged as before. */
    @Test
    void rule4WithoutAResourceStillNeedsARowPerElection() {
        assertThat(new Ack("a", 5, 1).resource()).isNull();
        assertThat(new Ack("a", 5, 1, 100, 110, "partition-1").resource()).isNull();
        List<Grant> grants = List.of(new Grant(10, "partition-1", "a", 5, A));
        List<Committed> anywhere = List.of(new Committed(1, "ledger-partition-2", "a", 5, 1, A));
        assertThat(check(anywhere, grants, List.of(new Ack("a", 5, 1, 100, 110, "partition-1")))
                        .violations())
                .isEmpty();
        assertThat(check(List.of(), grants, List.of(new Ack("a", 5, 1))).violations())
                .singleElement()
                .asString()
                .startsWith("rule 4:");
    }
}
