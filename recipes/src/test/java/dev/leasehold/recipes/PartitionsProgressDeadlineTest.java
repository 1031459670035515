package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 27 for {@link FencedPartitions}: a progress deadline per held partition. A partition whose work is stuck (the
 * member's session and node live on) is given up with {@code STALLED} and taken by another member with a higher token;
 * the member keeps the partitions whose work progresses. Real ZooKeeper; ordered with the listeners' events.
 */
@Timeout(120)
class PartitionsProgressDeadlineTest extends ZkTestCase {

    private static final String PATH = "/billing/stuck-partitions";

    private final PartitionRecorder.Holders holders = new PartitionRecorder.Holders();

    private FencedPartitions member(String id, int count, Duration deadline, PartitionRecorder recorder)
            throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        FencedPartitions partitions = new FencedPartitions(client, PATH, id, count, recorder);
        if (deadline != null) {
            partitions.setProgressDeadline(deadline);
        }
        closeLater(partitions);
        return partitions;
    }

    /**
     * The partitions' work: calls progress(p) for every partition the member holds, except the stuck ones, one item
     * of work every 20 ms (the park stands for the time an item takes: simulated work, not synchronisation).
     */
    private Thread work(FencedPartitions partitions, Set<Integer> stuck) {
        Thread worker = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                for (Integer p : partitions.owned().keySet()) {
                    if (!stuck.contains(p)) {
                        partitions.progress(p);
                    }
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
        });
        worker.setDaemon(true);
        worker.start();
        closeLater(worker::interrupt);
        return worker;
    }

    /**
     * Timeline: a (deadline 2 s) holds all 3 partitions, b joins (no deadline): a keeps 2, b takes 1. The work of
     * one of a's partitions then hangs while the other keeps calling progress(). At the deadline a hears lost(s,
     * STALLED); after it returned a's node of s is gone and s is handed to b (which holds fewer), who takes it with a
     * higher token; a keeps its other partition with the same token, never told anything about it.
     */
    @Test
    void aStuckPartitionGoesToAnotherMemberWithAHigherTokenAndTheMemberKeepsTheRest() throws Exception {
        PartitionRecorder recA = new PartitionRecorder("a", holders);
        PartitionRecorder recB = new PartitionRecorder("b", holders);
        FencedPartitions a = member("a", 3, Duration.ofSeconds(2), recA);
        Set<Integer> stuck = ConcurrentHashMap.newKeySet();
        work(a, stuck);
        a.start();
        recA.awaitHeld(3);
        FencedPartitions b = member("b", 3, null, recB);
        b.start();
        recB.awaitHeld(1);
        recA.awaitHeld(2);

        Map<Integer, FencingToken> before = a.owned();
        int s = before.keySet().iterator().next();
        int kept = before.keySet().stream().filter(p -> p != s).findFirst().orElseThrow();
        int seen = recA.events().size();
        stuck.add(s);

        recA.await("lost " + s, r -> !r.losses(LossCause.STALLED).isEmpty());
        recB.await("took " + s, r -> r.held().containsKey(s));

        PartitionRecorder.Event lost = recA.losses(LossCause.STALLED).get(0);
        assertThat(lost.partition()).isEqualTo(s);
        assertThat(lost.token()).isEqualTo(before.get(s));
        assertThat(recB.held().get(s).value()).isGreaterThan(before.get(s).value());
        assertThat(a.owned()).containsExactlyEntriesOf(Map.of(kept, before.get(kept)));
        assertThat(recA.events().subList(seen, recA.events().size()))
                .as("a was told of nothing else since its partition got stuck")
                .containsExactly(lost);
        assertThat(a.currentAssignment()).containsEntry(s, "b");
        assertThat(a.currentOwners().get(s).participantId()).isEqualTo("b");
        assertThat(a.sinceProgress(s)).as("no longer held").isEmpty();
        assertThat(holders.violations)
                .as("never two holders, tokens never back")
                .isEmpty();
    }

    /** Alone, a member whose partition's work is stuck gives it up and joins it again: a new node, a higher token. */
    @Test
    void aLoneMemberTakesItsStuckPartitionAgainWithAHigherToken() throws Exception {
        PartitionRecorder rec = new PartitionRecorder("a", holders);
        FencedPartitions a = member("a", 1, Duration.ofMillis(300), rec);
        a.start();
        rec.awaitHeld(1);
        FencingToken first = a.owned().get(0);

        rec.await("acquired again", r -> r.events().stream()
                .anyMatch(e -> e.acquired() && e.token().value() > first.value()));

        assertThat(rec.events())
                .extracting(e -> e.cause() == null ? "acquired" : "lost " + e.cause())
                .startsWith("acquired", "lost STALLED", "acquired");
        assertThat(rec.events().get(1).token()).isEqualTo(first);
        assertThat(holders.violations).isEmpty();
    }

    @Test
    void aBadDeadlineOrPartitionIsRefusedAtTheDoorAndProgressOfAPartitionNotHeldIsIgnored() throws Exception {
        FencedPartitions a = member("a", 4, null, new PartitionRecorder("a", holders));
        assertThatThrownBy(() -> a.setProgressDeadline(null)).hasMessage("progressDeadline must not be null");
        for (Duration bad : new Duration[] {Duration.ZERO, Duration.ofMillis(-5), Duration.ofDays(2)}) {
            assertThatThrownBy(() -> a.setProgressDeadline(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("progressDeadline must be more than 0 and at most PT24H");
        }
        assertThat(a.progressDeadline()).isEmpty();
        for (int bad : new int[] {-1, 4}) {
            assertThatThrownBy(() -> a.progress(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("partition must be from 0 to 3, was " + bad);
            assertThatThrownBy(() -> a.sinceProgress(bad)).isInstanceOf(IllegalArgumentException.class);
        }
        a.progress(2); // not held: ignored
        assertThat(a.sinceProgress(2)).isEmpty();
        a.setProgressDeadline(Duration.ofMinutes(1));
        assertThat(a.progressDeadline()).hasValue(Duration.ofMinutes(1));

        a.start();
        assertThatThrownBy(() -> a.setProgressDeadline(Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("before start()");
        assertThat(observer.checkExists().forPath(PATH + "/members/a"))
                .as("started normally")
                .isNotNull();
    }
}
