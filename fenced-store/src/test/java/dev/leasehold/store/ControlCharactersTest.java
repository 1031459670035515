package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.claims.BatchClaims;
import dev.leasehold.store.slots.SlotRuns;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 42: a name with a control character (a line break, a terminal escape) is refused at the door, wherever a name
 * enters the store, before anything is written: in a log, in {@code inspect} or in the fence's history it could forge
 * a line or drive the terminal.
 */
class ControlCharactersTest {
    private static final JdbcDataSource H2 = new JdbcDataSource();

    @BeforeAll
    static void schema() {
        H2.setURL("jdbc:h2:mem:control-characters;DB_CLOSE_DELAY=-1");
        FencedSchema.install(H2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"billing\nresource: forged", "billing\u001b]0;owned\u0007", "tab\there", "nul\u0000"})
    void everyNameThatEntersTheStoreRefusesControlCharacters(String name) throws Exception {
        FenceGate gate = new FenceGate(H2);
        assertThatThrownBy(() -> gate.advance(name, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("resource must not contain control characters")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContainPattern("\\p{Cntrl}"));
        assertThatThrownBy(() -> gate.write(name, 5, tx -> {})).isInstanceOf(IllegalArgumentException.class);
        BatchClaims batches = new BatchClaims(H2);
        assertThatThrownBy(() -> batches.enqueue(name, "payload")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> batches.claimNext(name, Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SlotRuns(H2)
                        .tryClaim(name, Instant.parse("2026-01-01T00:00:00Z"), "r1", Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(rows("leasehold_fence") + rows("leasehold_batches") + rows("leasehold_slot_runs"))
                .as("nothing written")
                .isZero();
    }

    @Test
    void plainNamesStillPass() {
        FenceGate gate = new FenceGate(H2);
        gate.advance("billing-2026 (eu)", 5);
        assertThat(gate.highestToken("billing-2026 (eu)")).hasValue(5);
    }

    private static int rows(String table) throws Exception {
        try (Connection c = H2.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
