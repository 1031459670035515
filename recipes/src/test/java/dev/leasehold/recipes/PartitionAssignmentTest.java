package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PartitionAssignmentTest {

    private static List<String> members(int n) {
        List<String> members = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            members.add("member-" + i);
        }
        return members;
    }

    private static void assertBalanced(PartitionAssignment target, List<String> members) {
        int p = target.partitionCount();
        for (String member : members) {
            assertThat(target.partitionsOf(member).size())
                    .as("%s of %d partitions over %d members", member, p, members.size())
                    .isBetween(p / members.size(), (p + members.size() - 1) / members.size());
        }
        assertThat(target.asMap()).hasSize(p);
    }

    @Test
    void aFourthMemberJoiningThreeWithTwelvePartitionsMovesExactlyThree() {
        PartitionAssignment three = PartitionAssignment.empty(12).next(members(3));
        PartitionAssignment four = three.next(members(4));
        assertBalanced(three, members(3));
        assertBalanced(four, members(4));
        assertThat(three.movedTo(four)).isEqualTo(3);
        assertThat(four.partitionsOf("member-3")).hasSize(3);
    }

    @Test
    void joinsAndLeavesMoveOnlyWhatMustMoveAndStayBalanced() {
        Random random = new Random(26);
        for (int round = 0; round < 120; round++) {
            int partitions = 1 + random.nextInt(200);
            List<String> live = new ArrayList<>(members(1 + random.nextInt(12)));
            PartitionAssignment target = PartitionAssignment.empty(partitions).next(live);
            assertBalanced(target, live);
            for (int change = 0; change < 10; change++) {
                boolean join = live.size() == 1 || random.nextBoolean();
                String who = join ? "joiner-" + round + "-" + change : live.get(random.nextInt(live.size()));
                List<String> next = new ArrayList<>(live);
                if (join) {
                    next.add(who);
                } else {
                    next.remove(who);
                }
                PartitionAssignment after = target.next(next);
                assertBalanced(after, next);
                int mustMove = join
                        ? after.partitionsOf(who).size()
                        : target.partitionsOf(who).size() + excessAfterLeave(target, next);
                assertThat(target.movedTo(after))
                        .as("%s of %s, %d partitions", join ? "join" : "leave", who, partitions)
                        .isEqualTo(mustMove);
                if (join) {
                    for (int p = 0; p < partitions; p++) {
                        assertThat(after.ownerOf(p)).isIn(who, target.ownerOf(p));
                    }
                } else {
                    for (int p = 0; p < partitions; p++) {
                        if (!who.equals(target.ownerOf(p))) {
                            assertThat(after.ownerOf(p)).isEqualTo(target.ownerOf(p));
                        }
                    }
                }
                assertThat(after.next(next))
                        .as("a target that fits its members is kept")
                        .isEqualTo(after);
                target = after;
                live = next;
            }
        }
    }

    /** After a leave, members that held ceil(P/N) may hold one too many for N-1: never, since N-1 raises the share. */
    private static int excessAfterLeave(PartitionAssignment before, List<String> remaining) {
        int share = (before.partitionCount() + remaining.size() - 1) / remaining.size();
        return remaining.stream()
                .mapToInt(m -> Math.max(0, before.partitionsOf(m).size() - share))
                .sum();
    }

    @Test
    void encodesAndDecodesItself() {
        PartitionAssignment target = PartitionAssignment.empty(7).next(List.of("a", "b b", "c-ü"));
        assertThat(PartitionAssignment.decode(target.encode())).isEqualTo(target);
        assertThat(PartitionAssignment.decode(PartitionAssignment.empty(3).encode()))
                .isEqualTo(PartitionAssignment.empty(3));
        assertThatThrownBy(() -> PartitionAssignment.decode("hello".getBytes()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a partition assignment");
    }

    @Test
    void tenThousandPartitionsOverTenMembersFitInAZnode() {
        PartitionAssignment target = PartitionAssignment.empty(10_000).next(members(10));
        assertBalanced(target, members(10));
        assertThat(target.encode().length).isLessThan(1024 * 1024);
    }
}
