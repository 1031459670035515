package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

class FencedPartitionsTest extends ZkTestCase {

    static final String PATH = "/billing/partitions";

    final PartitionRecorder.Holders holders = new PartitionRecorder.Holders();

    record Member(FencedPartitions partitions, PartitionRecorder recorder, CuratorFramework client) {}

    Member member(String id, int partitionCount) throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        PartitionRecorder recorder = new PartitionRecorder(id, holders);
        FencedPartitions partitions = closeLater(new FencedPartitions(client, PATH, id, partitionCount, recorder));
        partitions.start();
        return new Member(partitions, recorder, client);
    }

    static void awaitBalanced(List<Member> members, int partitionCount) throws InterruptedException {
        try {
            awaitBalancedShares(members, partitionCount);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\n" + diagnosis(members), e);
        }
    }

    /**
     * What a failed wait needs to be understood after the fact (a CI run keeps only the message): each member's
     * recipe, its client's connection and session, and what each recipe thread is doing.
     */
    private static String diagnosis(List<Member> members) {
        StringBuilder text = new StringBuilder("diagnosis:");
        for (Member m : members) {
            String owners;
            try {
                owners = m.partitions().currentOwners().toString();
            } catch (RuntimeException e) {
                owners = "unread (" + e.getMessage() + ")";
            }
            text.append("\n  owns ")
                    .append(m.partitions().owned().keySet())
                    .append(", owners as ZooKeeper says ")
                    .append(owners)
                    .append(", connected ")
                    .append(m.client().getZookeeperClient().isConnected())
                    .append(", session 0x")
                    .append(Long.toHexString(ElectionNodes.sessionId(m.client())));
        }
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            if (thread.getName().startsWith("leasehold-partitions-")) {
                text.append("\n  ").append(thread.getName()).append(' ').append(thread.getState());
                for (int i = 0; i < Math.min(12, stack.length); i++) {
                    text.append("\n    at ").append(stack[i]);
                }
            }
        });
        return text.toString();
    }

    private static void awaitBalancedShares(List<Member> members, int partitionCount) throws InterruptedException {
        int n = members.size();
        for (Member m : members) {
            m.recorder()
                    .await(
                            "a balanced share",
                            r -> r.held().size() >= partitionCount / n
                                    && r.held().size() <= (partitionCount + n - 1) / n);
        }
        // every partition held by exactly one member, as the members see it
        for (Member m : members) {
            m.recorder().await("all partitions held", r -> heldInAll(members) == partitionCount);
        }
    }

    static int heldInAll(List<Member> members) {
        Set<Integer> all = new HashSet<>();
        int sum = 0;
        for (Member m : members) {
            all.addAll(m.recorder().held().keySet());
            sum += m.recorder().held().size();
        }
        return all.size() == sum ? sum : -1;
    }

    @Test
    void threeMembersShareTwelvePartitionsFourEachWithTheirNodesCzxidAsToken() throws Exception {
        List<Member> members = List.of(member("a", 12), member("b", 12), member("c", 12));
        for (Member m : members) {
            m.recorder().awaitHeld(4);
        }
        Map<Integer, LeaderInfo> owners = members.get(0).partitions().currentOwners();
        assertThat(owners).hasSize(12);
        for (Member m : members) {
            Map<Integer, FencingToken> owned = m.partitions().owned();
            assertThat(owned).isEqualTo(m.recorder().held());
            owned.forEach((p, token) -> {
                assertThat(owners.get(p).participantId())
                        .isEqualTo(m.partitions().memberId());
                assertThat(owners.get(p).token().value()).isEqualTo(token.value());
                try {
                    assertThat(Zk.czxid(observer, token.path())).isEqualTo(token.value());
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                assertThat(token.path()).startsWith(PATH + "/partitions/" + p + "/");
            });
        }
        assertThat(members.get(0).partitions().currentAssignment()).hasSize(12);
        assertThat(holders.violations).isEmpty();
        for (Member m : members) {
            assertThat(m.recorder().events())
                    .allSatisfy(e -> assertThat(e.thread()).startsWith("leasehold-partitions-"));
        }
    }

    @Test
    void aFourthMemberTakesExactlyThreeAndEachMovesOnlyAfterItsOwnersLostReturned() throws Exception {
        List<Member> three = List.of(member("a", 12), member("b", 12), member("c", 12));
        awaitBalanced(three, 12);
        Map<Integer, FencingToken> before = new java.util.TreeMap<>();
        three.forEach(m -> before.putAll(m.recorder().held()));
        int lossesBefore = three.stream()
                .mapToInt(m -> m.recorder().losses(LossCause.REBALANCED).size())
                .sum();
        CountDownLatch stillStopping = new CountDownLatch(1);
        three.forEach(m -> {
            m.recorder().lostGate = stillStopping;
            m.recorder().lostEntered.set(0);
        });

        Member d = member("d", 12);
        // the three old owners are inside lost(p, REBALANCED), still stopping their work: d must not hold anything
        long deadline = System.nanoTime() + Zk.WAIT.toNanos();
        while (three.stream().mapToInt(m -> m.recorder().lostEntered.get()).sum() < 3) {
            assertThat(System.nanoTime()).as("three lost() calls began").isLessThan(deadline);
            Thread.onSpinWait();
        }
        Map<Integer, LeaderInfo> during = observerOwners(d);
        assertThat(d.recorder().held()).isEmpty();
        assertThat(during.values()).extracting(LeaderInfo::participantId).doesNotContain("d");
        stillStopping.countDown();

        List<Member> four = new ArrayList<>(three);
        four.add(d);
        awaitBalanced(four, 12);
        assertThat(d.recorder().held()).hasSize(3);
        int rebalanced = three.stream()
                .mapToInt(m -> m.recorder().losses(LossCause.REBALANCED).size())
                .sum();
        assertThat(rebalanced - lossesBefore).as("partitions moved").isEqualTo(3);
        d.recorder().held().forEach((p, token) -> assertThat(token.value())
                .as("partition %d's token rises across owners", p)
                .isGreaterThan(before.get(p).value()));
        for (Member m : three) {
            m.recorder().held().forEach((p, token) -> assertThat(token).isEqualTo(before.get(p)));
        }
        assertThat(holders.violations).isEmpty();
    }

    /** Waits until {@code path} has no children or is gone (a container parent may be reaped meanwhile). */
    void awaitNoChildren(String path) throws Exception {
        try {
            Zk.awaitChildren(observer, path, 0);
        } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
            // reaped between the exists and the read: no children
        }
    }

    static Map<Integer, LeaderInfo> observerOwners(Member m) {
        return m.partitions().currentOwners();
    }

    @Test
    void aClosedMembersPartitionsMoveAfterItsLostClosedReturned() throws Exception {
        Member a = member("a", 10);
        Member b = member("b", 10);
        awaitBalanced(List.of(a, b), 10);
        Map<Integer, FencingToken> aHeld = a.recorder().held();
        a.partitions().close();
        assertThat(a.recorder().losses(LossCause.CLOSED)).hasSize(5);
        assertThat(a.partitions().owned()).isEmpty();
        b.recorder().awaitHeld(10);
        aHeld.forEach(
                (p, token) -> assertThat(b.recorder().held().get(p).value()).isGreaterThan(token.value()));
        assertThat(holders.violations).isEmpty();
        Zk.awaitChildren(observer, PATH + "/members", 1);
        a.partitions().close(); // idempotent
    }

    @Test
    void anExpiredSessionLosesEveryPartitionAtOnceAndComesBackWithHigherTokens() throws Exception {
        Member a = member("a", 8);
        Member b = member("b", 8);
        awaitBalanced(List.of(a, b), 8);
        Map<Integer, FencingToken> aHeld = a.recorder().held();
        holders.excuse("a");
        a.client().getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
        a.recorder().await("all lost with LOST", r -> r.losses(LossCause.LOST).size() == 4);
        assertThat(a.recorder().losses(LossCause.LOST))
                .extracting(PartitionRecorder.Event::partition)
                .containsExactlyInAnyOrderElementsOf(aHeld.keySet());
        awaitBalanced(List.of(a, b), 8);
        for (Member m : List.of(a, b)) {
            m.recorder().held().forEach((p, token) -> {
                if (aHeld.containsKey(p)) {
                    assertThat(token.value()).isGreaterThan(aHeld.get(p).value());
                }
            });
        }
        assertThat(holders.violations).isEmpty();
    }

    @Test
    void closeRacingStartLeavesNothingBehind() throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        for (int i = 0; i < 20; i++) {
            PartitionRecorder recorder = new PartitionRecorder("r" + i, holders);
            FencedPartitions partitions = new FencedPartitions(client, PATH, "racer", 4, recorder);
            CountDownLatch go = new CountDownLatch(1);
            Thread closer = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                partitions.close();
            });
            closer.start();
            go.countDown();
            try {
                partitions.start();
            } catch (IllegalStateException e) {
                assertThat(e).hasMessageContaining("CLOSED");
            }
            closer.join();
            partitions.close();
            assertThat(partitions.owned()).isEmpty();
            awaitNoChildren(PATH + "/members");
            recorder.await("as many lost as acquired", r -> r.held().isEmpty());
        }
        for (int p = 0; p < 4; p++) {
            awaitNoChildren(PATH + "/partitions/" + p);
        }
        assertThat(holders.violations).isEmpty();
    }

    /**
     * {@code PartitionListeners} hands the first throw of its listeners back to the recipe: the recipe must log it and
     * go on with the same step. A listener's Error from {@code rebalanced} once kept b from joining its partitions
     * (nothing else woke b again), were the step left to the throw.
     */
    @Test
    void aRebalancedListenerThatThrowsAnErrorDoesNotKeepItsMemberFromTakingItsShare() throws Exception {
        Member a = member("a", 4);
        a.recorder().awaitHeld(4);
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        PartitionRecorder recorder = new PartitionRecorder("b", holders);
        FencedPartitions b = closeLater(new FencedPartitions(client, PATH, "b", 4, recorder));
        CountDownLatch thrown = new CountDownLatch(1);
        b.addListener(new FencedPartitionListener() {
            @Override
            public void acquired(int partition, FencingToken token) {}

            @Override
            public void lost(int partition, FencingToken token, LossCause cause) {}

            @Override
            public void rebalanced(int members, java.util.SortedSet<Integer> target) {
                thrown.countDown();
                throw new AssertionError("a listener's bug");
            }
        });
        b.start();
        recorder.awaitHeld(2);
        assertThat(thrown.getCount()).isZero();
        awaitBalanced(List.of(a, new Member(b, recorder, client)), 4);
        assertThat(holders.violations).isEmpty();
    }
}
