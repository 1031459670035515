package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.claims.BatchClaim;
import dev.leasehold.store.claims.BatchClaims;
import dev.leasehold.store.slots.SlotClaim;
import dev.leasehold.store.slots.SlotRuns;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The store tells its listener what each call decided, and a listener that throws changes nothing. */
class H2StoreListenerTest {

    private final List<String> told = new CopyOnWriteArrayList<>();
    private final JdbcDataSource ds = new JdbcDataSource();
    private StoreConfig config;

    private final StoreListener recording = new StoreListener() {
        @Override
        public void fenceWrite(String resource, long token, FenceOutcome outcome) {
            told.add("fence " + resource + " " + token + " " + outcome);
        }

        @Override
        public void claims(ClaimOutcome outcome, int count) {
            told.add("claims " + outcome + " " + count);
        }

        @Override
        public void slots(String job, SlotOutcome outcome, int count) {
            told.add("slots " + job + " " + outcome + " " + count);
        }
    };

    @BeforeEach
    void freshDatabase() {
        ds.setURL("jdbc:h2:mem:listener-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        config = StoreConfig.defaults().withListener(recording);
        FencedSchema.install(ds, config);
    }

    @Test
    void fenceWritesAreToldAcceptedStaleOrFailedWithResourceAndToken() {
        FenceGate gate = new FenceGate(ds, config);
        gate.advance("ledger", 5);
        gate.write("ledger", 5, tx -> {});
        assertThatThrownBy(() -> gate.write("ledger", 4, tx -> {})).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> gate.write("ledger", 6, tx -> {
                    throw new IllegalStateException("the work failed");
                }))
                .hasMessage("the work failed");
        assertThat(gate.update(
                        "ledger",
                        7,
                        "UPDATE " + config.tablePrefix() + "fence SET token = token" + " WHERE resource = ?",
                        "none"))
                .isZero();
        assertThat(told)
                .containsExactly(
                        "fence ledger 5 ACCEPTED",
                        "fence ledger 5 ACCEPTED",
                        "fence ledger 4 STALE",
                        "fence ledger 6 FAILED",
                        "fence ledger 7 ACCEPTED");
    }

    @Test
    void claimsAreToldClaimedEmptyFinishedAndLost() {
        BatchClaims claims = new BatchClaims(ds, config);
        claims.enqueue("b1", "p");
        claims.enqueue("b2", "p");
        BatchClaim first = claims.claimNext("w1", Duration.ofMinutes(1)).orElseThrow();
        List<BatchClaim> rest = claims.claimUpTo("w1", Duration.ofMinutes(1), 10);
        assertThat(claims.claimNext("w1", Duration.ofMinutes(1))).isEmpty();
        assertThat(claims.finish(first, "ok")).isTrue();
        assertThat(claims.finish(first, "again")).isFalse();
        assertThat(claims.renew(first, Duration.ofMinutes(1))).isFalse();
        assertThat(claims.finishAll(rest, "ok").finished()).hasSize(1);
        assertThat(told)
                .containsExactly(
                        "claims CLAIMED 1",
                        "claims CLAIMED 1",
                        "claims EMPTY 1",
                        "claims FINISHED 1",
                        "claims LOST_ON_FINISH 1",
                        "claims LOST_ON_RENEW 1",
                        "claims FINISHED 1");
    }

    @Test
    void slotsAreToldWonLostTakenOverAndLateCompleteRejected() {
        SlotRuns slots = new SlotRuns(ds, config);
        Instant slot = Instant.parse("2026-11-30T10:00:00Z");
        SlotClaim won =
                slots.tryClaim("report", slot, "r1", Duration.ofMillis(1)).orElseThrow();
        assertThat(slots.tryClaim("report", slot, "r2", Duration.ofMinutes(1))).isEmpty();
        List<SlotClaim> taken = List.of();
        while (taken.isEmpty()) { // the 1 ms lease ends on the database clock; sweep until it has
            taken = slots.sweep("report", "r2", Duration.ofMinutes(1));
        }
        assertThat(slots.complete(won, "late")).isFalse();
        assertThat(slots.complete(taken.get(0), "ok")).isTrue();
        assertThat(told)
                .containsExactly(
                        "slots report WON 1",
                        "slots report LOST_RACE 1",
                        "slots report TAKEN_OVER 1",
                        "slots report LATE_COMPLETE_REJECTED 1",
                        "slots report COMPLETED 1");
    }

    @Test
    void aListenerThatThrowsIsLoggedAndChangesNothing() {
        StoreConfig throwing = StoreConfig.defaults().withListener(new StoreListener() {
            @Override
            public void fenceWrite(String resource, long token, FenceOutcome outcome) {
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void claims(ClaimOutcome outcome, int count) {
                throw new AssertionError("listener bug");
            }
        });
        FenceGate gate = new FenceGate(ds, throwing);
        gate.advance("ledger", 3);
        assertThat(gate.highestToken("ledger")).hasValue(3);
        assertThatThrownBy(() -> gate.advance("ledger", 2)).isInstanceOf(StaleTokenException.class);
        BatchClaims claims = new BatchClaims(ds, throwing);
        claims.enqueue("b1", "p");
        Optional<BatchClaim> claim = claims.claimNext("w1", Duration.ofMinutes(1));
        assertThat(claim).isPresent();
        assertThat(claims.finish(claim.get(), "ok")).isTrue();
    }

    @Test
    void anArgumentRejectedAtTheDoorIsNoEventAndANullListenerIsRejected() {
        FenceGate gate = new FenceGate(ds, config);
        assertThatThrownBy(() -> gate.advance("", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BatchClaims(ds, config).claimUpTo("w", Duration.ofMinutes(1), 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(told).isEmpty();
        assertThatThrownBy(() -> StoreConfig.defaults().withListener(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("StoreListener.NONE");
    }
}
