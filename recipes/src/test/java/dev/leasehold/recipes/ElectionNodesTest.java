package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ElectionNodesTest {

    @Test
    void sequenceIsTheTenDigitSuffixAfterTheMarker() {
        assertThat(ElectionNodes.sequenceOf("_c_0f1e-latch-0000000042", "latch-"))
                .isEqualTo(42);
        assertThat(ElectionNodes.sequenceOf("latch-0000000000", "latch-")).isZero();
        assertThat(ElectionNodes.sequenceOf("_c_0f1e-lock-2147483647", "lock-")).isEqualTo(2147483647L);
        assertThat(ElectionNodes.sequenceOf("_c_0f1e-lock-0000000001", "latch-"))
                .isEqualTo(-1);
        assertThat(ElectionNodes.sequenceOf("latch-12", "latch-")).isEqualTo(-1);
        assertThat(ElectionNodes.sequenceOf("latch-00000000x1", "latch-")).isEqualTo(-1);
        assertThat(ElectionNodes.sequenceOf("unrelated", "latch-")).isEqualTo(-1);
    }

    @Test
    void lowestChildIsChosenBySequenceNotByName() {
        List<String> children = List.of(
                "_c_ffff-latch-0000000007",
                "_c_0000-latch-0000000009",
                "_c_aaaa-latch-0000000003",
                "not-an-election-node");
        assertThat(ElectionNodes.lowestChild(children, "latch-")).contains("_c_aaaa-latch-0000000003");
        assertThat(ElectionNodes.lowestChild(List.of("not-an-election-node"), "latch-"))
                .isEmpty();
        assertThat(ElectionNodes.lowestChild(List.of(), "lock-")).isEmpty();
    }

    @Test
    void tokensCompareByValueAndSplitIntoEpochAndCounter() {
        FencingToken epoch1 = new FencingToken(0x1_0000_0004L, "/a/n1", "a");
        FencingToken epoch2 = new FencingToken(0x2_0000_0002L, "/a/n2", "b");
        assertThat(epoch2).isGreaterThan(epoch1);
        assertThat(epoch2.value()).isGreaterThan(epoch1.value());
        assertThat(epoch1.epoch()).isEqualTo(1);
        assertThat(epoch1.counter()).isEqualTo(4);
        assertThat(epoch2.epoch()).isEqualTo(2);
        assertThat(epoch1.compareTo(new FencingToken(0x1_0000_0004L, "/other", "c")))
                .isZero();
        assertThatThrownBy(() -> new FencingToken(0, "/a", "a"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("greater than 0");
    }
}
