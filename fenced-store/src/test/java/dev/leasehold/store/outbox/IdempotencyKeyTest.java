package dev.leasehold.store.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.YearMonth;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class IdempotencyKeyTest {

    private enum Cycle {
        MONTHLY
    }

    @Test
    void theSameBusinessIdentityAlwaysMakesTheSameKey() {
        assertThat(IdempotencyKey.of("billing", "c42", "2026-11").value()).isEqualTo("billing:c42:2026-11");
        assertThat(IdempotencyKey.of("billing", "c42", YearMonth.of(2026, 11)))
                .isEqualTo(IdempotencyKey.of("billing", "c42", "2026-11"));
        assertThat(IdempotencyKey.of("accounting-push", 7L, Cycle.MONTHLY).value())
                .isEqualTo("accounting-push:7:MONTHLY");
        UUID id = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");
        assertThat(IdempotencyKey.of("batch", id).value()).isEqualTo("batch:" + id);
    }

    @Test
    void separatorsInsidePartsAreEscapedSoDifferentPartsNeverCollide() {
        IdempotencyKey split = IdempotencyKey.of("billing", "a", "b:c");
        IdempotencyKey joined = IdempotencyKey.of("billing", "a:b", "c");
        assertThat(split).isNotEqualTo(joined);
        assertThat(split.value()).isEqualTo("billing:a:b%3Ac");
        assertThat(IdempotencyKey.of("billing", "50%").value()).isEqualTo("billing:50%25");
    }

    @Test
    void partsWhoseTextCouldDifferBetweenJvmsAreRefused() {
        assertThatThrownBy(() -> IdempotencyKey.of("billing", new Object()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.Object");
        assertThatThrownBy(() -> IdempotencyKey.of("billing", 1.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> IdempotencyKey.of("billing", "c1", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("was null");
        assertThatThrownBy(() -> IdempotencyKey.of("billing", " "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blank");
        assertThatThrownBy(() -> IdempotencyKey.of("billing"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one part");
        assertThatThrownBy(() -> IdempotencyKey.of("Billing", "c1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("namespace must match");
        assertThatThrownBy(() -> IdempotencyKey.of("billing", "x".repeat(200)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 200 characters");
        assertThatThrownBy(() -> new IdempotencyKey("")).isInstanceOf(IllegalArgumentException.class);
    }
}
