package dev.leasehold.store.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Issue 21, defect 6: the gate's cache of passed tokens is bounded and only ever a hint. */
class PassedTokensTest {

    @Test
    void aGateThatSeesManyResourcesRemembersAtMostItsLimit() {
        PassedTokens passed = new PassedTokens(100);
        for (int i = 0; i < 1_000; i++) {
            passed.passed("resource-" + i, 7);
        }
        assertThat(passed.size()).isEqualTo(100);
        assertThat(new PassedTokens().size()).isZero();
        assertThat(PassedTokens.LIMIT).isEqualTo(10_000);
    }

    @Test
    void onlyTheLastTokenThatPassedIsSeenAndAForgottenResourceIsNot() {
        PassedTokens passed = new PassedTokens(10);
        passed.passed("ledger", 7);
        passed.passed("ledger", 5); // an older writer committed after a newer one: the newer token stays
        assertThat(passed.seen("ledger", 7)).isTrue();
        assertThat(passed.seen("ledger", 5)).isFalse();
        passed.forget("ledger");
        assertThat(passed.seen("ledger", 7)).isFalse();
    }
}
