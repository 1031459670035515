package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link StoreConfig}'s idle-in-transaction bound: its default, and bad values refused at the door. */
class StoreConfigTest {

    @Test
    void theIdleBoundDefaultsToThirtySecondsAndZeroLeavesTheServersOwn() {
        assertThat(StoreConfig.defaults().idleInTransactionTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(StoreConfig.defaults()
                        .withIdleInTransactionTimeout(Duration.ZERO)
                        .idleInTransactionTimeout())
                .isZero();
        assertThat(StoreConfig.defaults()
                        .withIdleInTransactionTimeout(Duration.ofHours(24))
                        .idleInTransactionTimeout())
                .isEqualTo(Duration.ofHours(24));
    }

    @Test
    void aBadIdleBoundIsRefusedWithWhatIsAllowed() {
        StoreConfig config = StoreConfig.defaults();
        for (Duration bad : new Duration[] {
            null, Duration.ofMillis(-1), Duration.ofHours(24).plusMillis(1), Duration.ofNanos(1_500_000)
        }) {
            assertThatThrownBy(() -> config.withIdleInTransactionTimeout(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("idleInTransactionTimeout must be whole milliseconds from 1 ms to PT24H, or"
                            + " Duration.ZERO to leave the server's own setting, was " + bad);
        }
    }
}
