package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The stored target is data anyone the group's ACL lets in can write (issue 42, item 3): a crafted node must be
 * refused with a message, never cost more than its own size, and never turn one line into another.
 */
class PartitionAssignmentDecodeTest {

    private static final String HEADER = "leasehold-partitions 1 ";

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static void refused(byte[] data, String why) {
        assertThatThrownBy(() -> PartitionAssignment.decode(data))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a partition assignment of this recipe")
                .hasMessageContaining(why);
    }

    @Test
    void theThirtyFourByteNodeOfTheReviewIsRefusedWithoutAllocatingItsCount() {
        // on main: new String[2147483647] -> OutOfMemoryError, which FencedPartitions' step does not catch
        refused(utf8(HEADER + "2147483647\n0\n\n"), "partition count 2147483647 is not from 1 to 10000");
    }

    @Test
    void partitionCountsOutOfRangeOrNotNumbersAreRefused() {
        refused(utf8(HEADER + "0\n0\n\n"), "partition count 0");
        refused(utf8(HEADER + "-3\n0\n-1 -1 -1\n"), "partition count -3");
        refused(utf8(HEADER + "10001\n0\n\n"), "partition count 10001");
        refused(utf8(HEADER + "99999999999999\n0\n-1\n"), "at most 10 digits");
        refused(utf8(HEADER + "9999999999\n0\n-1\n"), "out of range");
        refused(utf8(HEADER + "+2\n0\n-1 -1\n"), "is not a decimal number");
        refused(utf8(HEADER + " 2\n0\n-1 -1\n"), "is not a decimal number");
    }

    @Test
    void aMemberCountBeyondTheLinesOrNegativeIsRefused() {
        refused(utf8(HEADER + "2\n2147483647\na\n0 0\n"), "member count 2147483647");
        refused(utf8(HEADER + "2\n-1\n0 0\n"), "member count -1");
    }

    @Test
    void anOwnerIndexEqualToTheMemberCountDoesNotTurnTheIndexLineIntoAMemberId() {
        // on main: index 1 of 1 member read line 2 + 1, the index line itself, as the owner's id
        refused(utf8(HEADER + "2\n1\na\n0 1\n"), "partition 1: owner index 1 is not from -1 to 0");
        refused(utf8(HEADER + "2\n1\na\n0 -2\n"), "owner index -2");
        refused(utf8(HEADER + "2\n1\na\n0 x\n"), "is not a decimal number");
    }

    @Test
    void truncatedOrExtendedDataIsRefused() {
        byte[] good = PartitionAssignment.empty(5).next(List.of("a", "b")).encode();
        String text = new String(good, StandardCharsets.UTF_8);
        for (int cut = 0; cut < good.length; cut++) {
            byte[] truncated = java.util.Arrays.copyOf(good, cut);
            assertThatThrownBy(() -> PartitionAssignment.decode(truncated))
                    .as("the first %d bytes", cut)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        refused(utf8(text + "c\n"), "more after the index line");
        refused(utf8(HEADER + "5\n2\na\nb\n0 0 1 1\n"), "4 entries for 5 partitions");
        refused(utf8(HEADER + "5\n2\na\nb\n0 0 1 1 1 1\n"), "6 entries for 5 partitions");
        refused(utf8(HEADER + "5\n2\na\nb\n0 0 1  1\n"), "is not a decimal number");
    }

    @Test
    void bytesThatAreNotUtf8AreRefused() {
        byte[] data = utf8(HEADER + "1\n1\nXX\n0\n");
        int at = new String(data, StandardCharsets.UTF_8).indexOf("XX");
        data[at] = (byte) 0xC3; // a lead byte followed by 'X': not UTF-8
        refused(data, "not UTF-8");
        refused(new byte[] {(byte) 0xFF, (byte) 0xFE}, "not UTF-8");
    }

    @Test
    void memberIdsAMemberCouldNotHaveOrNamedTwiceAreRefused() {
        refused(utf8(HEADER + "2\n2\na\na\n0 1\n"), "named twice");
        refused(utf8(HEADER + "1\n1\na\u001b]0;x\n0\n"), "memberId must be");
        refused(utf8(HEADER + "1\n1\n\n0\n"), "memberId");
        refused(utf8(HEADER + "1\n1\na/b\n0\n"), "memberId must be");
    }

    @Test
    void whatTheRecipeWritesStillReadsBack() {
        for (int partitions : List.of(1, 3, 12, 10_000)) {
            PartitionAssignment target = PartitionAssignment.empty(partitions).next(List.of("a", "b b", "c-ü"));
            assertThat(PartitionAssignment.decode(target.encode())).isEqualTo(target);
            assertThat(PartitionAssignment.decode(
                            PartitionAssignment.empty(partitions).encode()))
                    .isEqualTo(PartitionAssignment.empty(partitions));
        }
    }
}
