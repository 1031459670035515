package dev.leasehold.store.lease;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The stored form of holder ids: unique per call, within the column, and shown as given. */
class HolderIdsTest {

    @Test
    void aStoredHolderIsTheIdPlusARandomSuffixAndShowsAsTheId() {
        String a = HolderIds.unique("worker");
        String b = HolderIds.unique("worker");
        assertThat(a).matches("worker#[0-9a-f]{16}").isNotEqualTo(b);
        assertThat(HolderIds.shown(a)).isEqualTo("worker");
        assertThat(HolderIds.shown(b)).isEqualTo("worker");
    }

    @Test
    void aHolderStoredWithoutSuffixByAnOlderVersionShowsAsItIs() {
        assertThat(HolderIds.shown("worker")).isEqualTo("worker");
        assertThat(HolderIds.shown("worker#abc")).isEqualTo("worker#abc");
        assertThat(HolderIds.shown(null)).isNull();
    }

    @Test
    void aLongIdIsCutSoThatTheStoredHolderFitsTheColumn() {
        String longest = "x".repeat(Names.MAX);
        String stored = HolderIds.unique(longest);
        assertThat(stored).hasSize(Names.MAX);
        assertThat(HolderIds.shown(stored)).isEqualTo("x".repeat(Names.MAX - HolderIds.SUFFIX_LENGTH));
    }

    @Test
    void aCutNeverSplitsACharacterInTwo() {
        String id = "x".repeat(Names.MAX - HolderIds.SUFFIX_LENGTH - 1) + "\uD83D\uDE00" + "yy"; // an emoji at the cut
        String stored = HolderIds.unique(id);
        assertThat(stored.length()).isLessThanOrEqualTo(Names.MAX);
        assertThat(HolderIds.shown(stored)).isEqualTo("x".repeat(Names.MAX - HolderIds.SUFFIX_LENGTH - 1));
    }
}
