package dev.leasehold.examples.fencebench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The bench runs end to end on embedded PostgreSQL with a tiny duration: every cell measured on both sides, the fenced
 * side through the check, the goal printed. Never a timing assertion: the figures are the bench's to print.
 */
class FenceBenchTest {

    @Test
    @Timeout(120)
    void measuresJpaAndJdbcTemplatePlainAndFencedAtOneAndEightThreadsThroughTheCheck() throws Exception {
        FenceBench.Result result =
                FenceBench.run(new BenchOptions(0.1, 0.05, List.of(1, 8), null, null, null, true), System.out);

        assertThat(result.databases()).hasSize(1);
        DatabaseRun run = result.databases().get(0);
        assertThat(run.cells())
                .extracting(Cell::kind, Cell::variant, Cell::threads)
                .containsExactly(
                        Tuple.tuple("JPA save", "@Fenced", 1),
                        Tuple.tuple("JPA save", "@Fenced", 8),
                        Tuple.tuple("JdbcTemplate insert", "@Fenced", 1),
                        Tuple.tuple("JdbcTemplate insert", "@Fenced", 8));
        assertThat(run.references()).hasSize(4);
        for (Cell cell : run.cells()) {
            String what = cell.kind() + ", " + cell.threads() + " threads";
            assertThat(cell.plain().rounds()).as(what).isEqualTo(BenchOptions.ROUNDS);
            assertThat(cell.other().rounds()).as(what).isEqualTo(BenchOptions.ROUNDS);
            assertThat(cell.plain().transactions()).as(what).isPositive();
            assertThat(cell.other().transactions()).as(what).isPositive();
        }
        // the fenced side went through the check: a lower token than the mark is refused in this very context, the
        // mark is the leader's token, and every fenced transaction passed a check (its backstop passes one more)
        assertThat(run.probeRefused()).isTrue();
        assertThat(run.token()).isPositive();
        assertThat(run.mark()).isEqualTo(run.token());
        assertThat(run.checkedWrites()).isPositive();
        assertThat(run.passedChecks()).isGreaterThanOrEqualTo(run.checkedWrites());

        assertThat(result.rows()).hasSize(16); // 4 cells and 4 references, two rows each
        assertThat(result.report())
                .contains("| benchmark | variant | n | median | p90 | p99 | ratio of medians | goal |")
                .contains("JPA save in @Transactional, @Fenced (PostgreSQL 17.")
                .contains("JdbcTemplate insert in @Transactional, @Fenced (PostgreSQL 17.");
        List<Row> goalRows = result.rows().stream()
                .filter(row ->
                        row.variant().contains(", 8 threads)") && row.variant().contains("@Fenced"))
                .toList();
        assertThat(goalRows).hasSize(2).allSatisfy(row -> assertThat(row.goal()).matches("(met|MISSED): >= 0\\.90"));
        assertThat(result.rows()).filteredOn(row -> !goalRows.contains(row)).allSatisfy(row -> assertThat(row.goal())
                .isEmpty());
        assertThat(result.report()).contains(">= 0.90");
    }
}
