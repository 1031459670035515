package dev.leasehold.store.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.store.FailoverDurability;
import dev.leasehold.store.FailoverDurability.Replication;
import org.junit.jupiter.api.Test;

/** The WARN at a store's first use: once per server and user in a JVM, and only when a failover can lose marks. */
class DurabilityCheckTest {

    private static final FailoverDurability AT_RISK =
            new FailoverDurability(Replication.ASYNCHRONOUS, "1 standby streams, none synchronously", "set it");
    private static final FailoverDurability SAFE =
            new FailoverDurability(Replication.SYNCHRONOUS, "synchronous_standby_names = 'pg1'", "");

    @Test
    void aServerAtRiskIsWarnedAboutOnceAndASafeOneNever() {
        assertThat(DurabilityCheck.warnOnce("jdbc:postgresql://safe/db as app", SAFE))
                .isFalse();
        assertThat(DurabilityCheck.warnOnce("jdbc:postgresql://async/db as app", AT_RISK))
                .isTrue();
        assertThat(DurabilityCheck.warnOnce("jdbc:postgresql://async/db as app", AT_RISK))
                .isFalse();
        assertThat(DurabilityCheck.warnOnce("jdbc:postgresql://async/db as other", AT_RISK))
                .isTrue();
    }
}
