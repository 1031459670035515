package dev.leasehold.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.FenceOutcome;
import dev.leasehold.store.SlotOutcome;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Issue 42: resource and job names past the limit are counted under one {@code other} tag, not one series each. */
class StoreMetersNameLimitTest {

    @Test
    void namesPastTheLimitAreCountedUnderOther() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        StoreMeters meters = new StoreMeters(registry, 2);
        meters.fenceWrite("a", 1, FenceOutcome.ACCEPTED);
        meters.fenceWrite("b", 1, FenceOutcome.ACCEPTED);
        IntStream.range(0, 50).forEach(i -> meters.fenceWrite("customer-" + i, 1, FenceOutcome.ACCEPTED));
        meters.fenceWrite("a", 1, FenceOutcome.ACCEPTED);

        assertThat(registry.find("leasehold.fence.writes").counters()).hasSize(3);
        assertThat(count(registry, "a"))
                .as("a name within the limit keeps its tag")
                .isEqualTo(2);
        assertThat(count(registry, "b")).isEqualTo(1);
        assertThat(count(registry, "other")).isEqualTo(50);

        meters.slots("j1", SlotOutcome.WON, 1);
        meters.slots("j2", SlotOutcome.WON, 1);
        meters.slots("j3", SlotOutcome.WON, 1);
        assertThat(registry.find("leasehold.slots")
                        .tag("job", "other")
                        .counter()
                        .count())
                .as("jobs have a limit of their own")
                .isEqualTo(1);
    }

    @Test
    void theDefaultLimitIsAHundredAndALimitBelowOneIsRefused() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        StoreMeters meters = new StoreMeters(registry);
        IntStream.range(0, 150).forEach(i -> meters.fenceWrite("r" + i, 1, FenceOutcome.STALE));
        assertThat(registry.find("leasehold.fence.writes").counters()).hasSize(StoreMeters.DEFAULT_NAME_LIMIT + 1);
        assertThatThrownBy(() -> new StoreMeters(registry, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1");
    }

    private static double count(SimpleMeterRegistry registry, String resource) {
        return registry.find("leasehold.fence.writes")
                .tag("resource", resource)
                .counter()
                .count();
    }
}
