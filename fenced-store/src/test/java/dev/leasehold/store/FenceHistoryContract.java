package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.MarkChange.Kind;
import java.util.List;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fence's history (issue 13): every token that became a resource's mark, with the mark before it, the holder and
 * the database time, written in the transaction that raised it; re-bases in the same history; bounded per resource.
 */
abstract class FenceHistoryContract {

    private DataSource ds;
    private StoreConfig config;
    private FenceGate gate;

    /** A fresh, empty database, or one where the prefix {@code prefix} was never used. */
    protected abstract DataSource dataSource();

    private static int schemas;

    @BeforeEach
    void install() {
        ds = dataSource();
        config = StoreConfig.defaults().withTablePrefix("hist" + (++schemas) + "_");
        FencedSchema.install(ds, config);
        gate = new FenceGate(ds, config);
    }

    private static String summary(MarkChange change) {
        return change.kind() + " " + change.token() + " after "
                + (change.previousToken().isPresent() ? change.previousToken().getAsLong() : "-")
                + " by " + change.holder().orElse("-")
                + change.reason().map(r -> " (" + r + ")").orElse("");
    }

    @Test
    void eachNewMarkIsRecordedOnceWithThePreviousMarkAndTheHolderNewestFirst() {
        gate.advance("ledger", 5, "billing-1");
        gate.write("ledger", 5, tx -> {});
        gate.write("ledger", 5, tx -> {});
        gate.advance("ledger", 9, "billing-2");
        gate.write("ledger", 12, tx -> {}); // the first accepted write with a higher token
        gate.update(
                "ledger",
                12,
                "UPDATE " + config.tablePrefix() + "fence SET updated_at = updated_at" + " WHERE resource = ?",
                "ledger");
        gate.advance("other", 1);

        List<MarkChange> history = gate.history("ledger", 10);
        assertThat(history)
                .extracting(FenceHistoryContract::summary)
                .containsExactly(
                        "RAISED 12 after 9 by -", "RAISED 9 after 5 by billing-2", "RAISED 5 after - by billing-1");
        assertThat(history).allSatisfy(change -> assertThat(change.resource()).isEqualTo("ledger"));
        assertThat(history.get(0).at()).isAfterOrEqualTo(history.get(1).at());
        assertThat(history.get(1).at()).isAfterOrEqualTo(history.get(2).at());
        assertThat(gate.history("ledger", 1)).extracting(MarkChange::token).containsExactly(12L);
        assertThat(gate.history("never-used", 10)).isEmpty();
    }

    @Test
    void aStaleOrFailedWriteRecordsNothing() {
        gate.advance("ledger", 10);
        assertThatThrownBy(() -> gate.write("ledger", 7, tx -> {})).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> gate.write("ledger", 11, tx -> {
                    throw new IllegalStateException("the work failed");
                }))
                .hasMessage("the work failed");
        assertThat(gate.highestToken("ledger")).hasValue(10);
        assertThat(gate.history("ledger", 10)).extracting(MarkChange::token).containsExactly(10L);

        gate.write("ledger", 11, tx -> {}); // the same token, now committed: recorded once
        assertThat(gate.history("ledger", 10)).extracting(MarkChange::token).containsExactly(11L, 10L);
    }

    @Test
    void aSecondGateWithTheSameTokenRecordsNoSecondRowAndUpdateRecordsItsNewMark() {
        FenceGate other = new FenceGate(ds, config); // another process
        gate.advance("ledger", 20, "a");
        other.write("ledger", 20, tx -> {});
        other.update(
                "ledger",
                21,
                "UPDATE " + config.tablePrefix() + "fence SET updated_at = updated_at" + " WHERE resource = ?",
                "ledger");
        assertThat(gate.history("ledger", 10))
                .extracting(FenceHistoryContract::summary)
                .containsExactly("RAISED 21 after 20 by -", "RAISED 20 after - by a");
    }

    @Test
    void aRebaseShowsInTheSameHistoryWithItsOperatorAndReason() {
        gate.advance("ledger", 100, "old-ensemble");
        OptionalLong old = gate.rebase("ledger", 3, "alice", "ZooKeeper rebuilt");
        gate.advance("ledger", 4, "new-ensemble");
        assertThat(old).hasValue(100);

        List<MarkChange> history = gate.history("ledger", 10);
        assertThat(history)
                .extracting(FenceHistoryContract::summary)
                .containsExactly(
                        "RAISED 4 after 3 by new-ensemble",
                        "REBASED 3 after 100 by alice (ZooKeeper rebuilt)",
                        "RAISED 100 after - by old-ensemble");
        assertThat(history.get(1).kind()).isEqualTo(Kind.REBASED);
    }

    /**
     * Issue 21, defect 6. Timeline: the old leader's gate writes with 100 (its cache knows 100 passed); an operator's
     * gate, in another process, re-bases the mark to 5; the old leader writes with 100 again, through write and
     * through update. The mark is 100 again, and the history says so: this is the raise the history exists for.
     */
    @Test
    void aRaiseAfterAnotherGatesRebaseIsRecordedThroughWriteAndUpdate() {
        gate.advance("ledger", 100, "old-leader");
        gate.write("ledger", 100, tx -> {});
        FenceGate operator = new FenceGate(ds, config);
        operator.rebase("ledger", 5, "alice", "ZooKeeper rebuilt");

        gate.write("ledger", 100, tx -> {});
        assertThat(gate.highestToken("ledger")).hasValue(100);
        assertThat(gate.history("ledger", 10))
                .extracting(FenceHistoryContract::summary)
                .containsExactly(
                        "RAISED 100 after 5 by -",
                        "REBASED 5 after 100 by alice (ZooKeeper rebuilt)",
                        "RAISED 100 after - by old-leader");

        gate.update(
                "other",
                100,
                "UPDATE " + config.tablePrefix() + "fence SET updated_at = updated_at" + " WHERE resource = ?",
                "other");
        gate.update(
                "other",
                100,
                "UPDATE " + config.tablePrefix() + "fence SET updated_at = updated_at" + " WHERE resource = ?",
                "other"); // the same token again: this gate now knows it passed
        operator.rebase("other", 5, "alice", "ZooKeeper rebuilt");
        gate.update(
                "other",
                100,
                "UPDATE " + config.tablePrefix() + "fence SET updated_at = updated_at" + " WHERE resource = ?",
                "other");
        assertThat(gate.history("other", 10))
                .extracting(FenceHistoryContract::summary)
                .containsExactly(
                        "RAISED 100 after 5 by -",
                        "REBASED 5 after 100 by alice (ZooKeeper rebuilt)",
                        "RAISED 100 after - by -");
    }

    @Test
    void theHistoryKeepsTheNewestRaisesUpToItsLimitAndEveryRebase() {
        FenceGate bounded = new FenceGate(ds, config.withHistoryLimit(3));
        bounded.rebase("ledger", 1, "bob", "first mark by hand");
        for (long token = 2; token <= 7; token++) {
            bounded.advance("ledger", token);
        }
        assertThat(bounded.history("ledger", 100))
                .extracting(FenceHistoryContract::summary)
                .containsExactly(
                        "RAISED 7 after 6 by -",
                        "RAISED 6 after 5 by -",
                        "RAISED 5 after 4 by -",
                        "REBASED 1 after - by bob (first mark by hand)");
    }

    @Test
    void badArgumentsAreRejectedAtTheDoorAndNothingIsWritten() {
        assertThatThrownBy(() -> gate.history("ledger", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit must be between 1 and 10000");
        assertThatThrownBy(() -> gate.advance("ledger", 5, " "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holder");
        assertThat(gate.highestToken("ledger")).isEmpty();
        assertThat(gate.history("ledger", 10)).isEmpty();
        assertThatThrownBy(() -> StoreConfig.defaults().withHistoryLimit(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("historyLimit");
    }
}
