package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import org.junit.jupiter.api.Test;

/**
 * {@link PartitionAssignment#handOff}: where a partition that made no progress goes. It must leave every member at
 * floor(P/N) or ceil(P/N), so that the target writer's next {@link PartitionAssignment#next} leaves it as it is (else
 * the partition would be moved straight back to the member that gave it up).
 */
class PartitionHandOffTest {

    @Test
    void aMemberAboveTheOtherGivesThePartitionAwayAndKeepsTheRest() {
        List<String> live = List.of("a", "b");
        PartitionAssignment target =
                PartitionAssignment.empty(3).next(List.of("a")).next(live);
        assertThat(target.partitionsOf("a")).hasSize(2);
        int stuck = target.partitionsOf("a").first();

        PartitionAssignment after = target.handOff(stuck, "a", live);

        assertThat(after.ownerOf(stuck)).isEqualTo("b");
        assertThat(after.partitionsOf("a")).hasSize(1).doesNotContain(stuck);
        assertThat(target.movedTo(after)).as("only the stuck partition moved").isEqualTo(1);
        assertThat(after.next(live))
                .as("stable under the target writer's next()")
                .isEqualTo(after);
    }

    @Test
    void betweenEqualMembersThePartitionIsExchangedForOneOfTheOthers() {
        List<String> live = List.of("a", "b", "c");
        PartitionAssignment target = PartitionAssignment.empty(12).next(live);
        int stuck = target.partitionsOf("a").first();

        PartitionAssignment after = target.handOff(stuck, "a", live);

        String to = after.ownerOf(stuck);
        assertThat(to).isIn("b", "c");
        assertThat(target.movedTo(after))
                .as("the stuck partition and one in exchange")
                .isEqualTo(2);
        Map<Integer, String> map = after.asMap();
        assertThat(map).hasSize(12);
        for (String m : live) {
            assertThat(after.partitionsOf(m)).hasSize(4);
        }
        SortedSet<Integer> gained = after.partitionsOf("a");
        gained.removeAll(target.partitionsOf("a"));
        assertThat(gained).hasSize(1);
        assertThat(target.ownerOf(gained.first())).isEqualTo(to);
        assertThat(after.next(live))
                .as("stable under the target writer's next()")
                .isEqualTo(after);
    }

    @Test
    void aloneOrNotTheTargetsMemberNothingMoves() {
        PartitionAssignment alone = PartitionAssignment.empty(4).next(List.of("a"));
        assertThat(alone.handOff(0, "a", List.of("a"))).isNull();
        PartitionAssignment two = PartitionAssignment.empty(4).next(List.of("a", "b"));
        int ofB = two.partitionsOf("b").first();
        assertThat(two.handOff(ofB, "a", List.of("a", "b")))
                .as("not a's partition")
                .isNull();
    }

    @Test
    void withFewerPartitionsThanMembersAMemberWithoutOneTakesIt() {
        List<String> live = List.of("a", "b", "c");
        PartitionAssignment target = PartitionAssignment.empty(2).next(live);
        String idle = live.stream()
                .filter(m -> target.partitionsOf(m).isEmpty())
                .findFirst()
                .orElseThrow();
        String holder = target.ownerOf(0);

        PartitionAssignment after = target.handOff(0, holder, live);

        assertThat(after.ownerOf(0)).isEqualTo(idle);
        assertThat(after.partitionsOf(holder)).isEmpty();
        assertThat(after.next(live)).isEqualTo(after);
    }
}
