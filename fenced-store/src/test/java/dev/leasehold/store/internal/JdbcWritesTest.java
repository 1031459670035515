package dev.leasehold.store.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Which store statements may change data: in auto-commit mode a lost answer after one of them is an unknown outcome,
 * after a plain read a retryable failure (issue 21, defect 3).
 */
class JdbcWritesTest {

    @Test
    void updatesInsertsAndH2sDataChangeDeltaTablesWriteAndPlainReadsDoNot() {
        assertThat(Jdbc.writes("UPDATE leasehold_lease SET generation = generation + 1"))
                .isTrue();
        assertThat(Jdbc.writes("WITH x AS (UPDATE t SET a = 1 RETURNING a) SELECT a FROM x"))
                .isTrue();
        assertThat(Jdbc.writes("  select generation from final table (update leasehold_lease set generation = 2)"))
                .as("H2's lease take")
                .isTrue();
        assertThat(Jdbc.writes("SELECT id FROM NEW TABLE (INSERT INTO t (a) VALUES (1))"))
                .isTrue();
        assertThat(Jdbc.writes("SELECT token FROM leasehold_fence WHERE resource = ? FOR UPDATE"))
                .isFalse();
        assertThat(Jdbc.writes("SELECT 1")).isFalse();
    }
}
