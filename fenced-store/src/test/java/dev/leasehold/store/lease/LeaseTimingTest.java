package dev.leasehold.store.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** client-go's timing rules, checked at the door with messages that name the rule broken. */
class LeaseTimingTest {

    @Test
    void theDefaultsAreKubeControllerManagers() {
        LeaseTiming timing = LeaseTiming.defaults();
        assertThat(timing.leaseDuration()).isEqualTo(Duration.ofSeconds(15));
        assertThat(timing.renewDeadline()).isEqualTo(Duration.ofSeconds(10));
        assertThat(timing.retryPeriod()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void theLeaseMustOutlastTheRenewDeadline() {
        assertThatThrownBy(() -> LeaseTiming.ofMillis(400, 400, 100))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("leaseDuration must be greater than renewDeadline")
                .hasMessageContaining("leaseDuration 400 ms, renewDeadline 400 ms");
    }

    @Test
    void theRenewDeadlineMustExceedOnePointTwoRetryPeriods() {
        assertThatThrownBy(() -> LeaseTiming.ofMillis(600, 120, 100))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("renewDeadline must be greater than 1.2 x retryPeriod")
                .hasMessageContaining("renewDeadline 120 ms, retryPeriod 100 ms");
        assertThat(LeaseTiming.ofMillis(600, 121, 100).renewDeadline()).isEqualTo(Duration.ofMillis(121));
    }

    @Test
    void durationsArePositiveWholeMillisecondsAndTheLeaseAtMostAWeek() {
        assertThatThrownBy(() -> new LeaseTiming(null, Duration.ofSeconds(1), Duration.ofMillis(1)))
                .hasMessage("leaseDuration must not be null");
        assertThatThrownBy(() -> LeaseTiming.ofMillis(600, 400, 0))
                .hasMessageStartingWith("retryPeriod must be positive and whole milliseconds");
        assertThatThrownBy(() -> LeaseTiming.ofMillis(600, -400, 100))
                .hasMessageStartingWith("renewDeadline must be positive");
        assertThatThrownBy(() -> new LeaseTiming(
                        Duration.ofSeconds(15),
                        Duration.ofSeconds(10),
                        Duration.ofSeconds(2).plusNanos(1)))
                .hasMessageStartingWith("retryPeriod must be positive and whole milliseconds");
        assertThatThrownBy(() -> new LeaseTiming(Duration.ofDays(8), Duration.ofSeconds(10), Duration.ofSeconds(2)))
                .hasMessageStartingWith("leaseDuration must be at most PT168H");
    }

    @Test
    void theDefaultHolderIsUniquePerCallAndAValidHolder() {
        String one = LeaseElection.defaultHolder();
        String two = LeaseElection.defaultHolder();
        assertThat(one).isNotEqualTo(two).contains("-" + ProcessHandle.current().pid() + "-");
        assertThat(one.length()).isLessThanOrEqualTo(200);
        assertThat(one.strip()).isEqualTo(one);
    }
}
