package dev.leasehold.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.lease.LeaseElection;
import dev.leasehold.store.lease.LeaseListener;
import dev.leasehold.store.lease.LeaseLoss;
import dev.leasehold.store.lease.LeaseTiming;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The lease election's meters, fed by a real election on H2: the same names as the recipes' meters. */
@Timeout(60)
class LeaseMetersTest {

    @Test
    void aGrantAndAGracefulCloseShowAsTheRecipesMeters() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:lease-meters;DB_CLOSE_DELAY=-1");
        FencedSchema.install(h2);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CountDownLatch acquired = new CountDownLatch(1);
        CountDownLatch lost = new CountDownLatch(1);
        LeaseListener none = new LeaseListener() {
            @Override
            public void acquired(long token) {}

            @Override
            public void lost(long token, LeaseLoss cause) {}
        };
        LeaseElection election = new LeaseElection(h2, "billing", "a", LeaseTiming.ofMillis(3000, 2000, 100), none);
        LeaseMeters meters = LeaseMeters.bind(registry, election);
        // told after the meters (listeners are called in the order they were added, on one thread)
        election.addListener(new LeaseListener() {
            @Override
            public void acquired(long token) {
                acquired.countDown();
            }

            @Override
            public void lost(long token, LeaseLoss cause) {
                lost.countDown();
            }
        });
        try {
            election.start();
            assertThat(acquired.await(20, TimeUnit.SECONDS)).isTrue();
            assertThat(meters.leading()).isTrue();
            assertThat(registry.get("leasehold.leader")
                            .tags("election", "billing", "participant", "a")
                            .gauge()
                            .value())
                    .isEqualTo(1.0);
            assertThat(registry.get("leasehold.leadership.grants").counter().count())
                    .isEqualTo(1.0);
        } finally {
            election.close();
        }
        assertThat(lost.await(1, TimeUnit.SECONDS))
                .as("close waited for lost()")
                .isTrue();
        assertThat(registry.get("leasehold.leader").gauge().value()).isZero();
        assertThat(registry.get("leasehold.leadership.losses")
                        .tag("cause", "closed")
                        .counter()
                        .count())
                .isEqualTo(1.0);
        assertThat(registry.get("leasehold.leadership.losses")
                        .tag("cause", "renew_failed")
                        .counter()
                        .count())
                .isZero();
        assertThat(registry.get("leasehold.leadership.held").timer().count()).isEqualTo(1);
        meters.remove();
        assertThat(registry.find("leasehold.leader").gauge()).isNull();
    }

    /** A holder whose work never calls progress() loses with cause stalled; the progress age gauge reads 0 after. */
    @Test
    void aStuckHolderCountsAStalledLossAndShowsItsProgressAge() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:lease-meters-stalled;DB_CLOSE_DELAY=-1");
        FencedSchema.install(h2);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CountDownLatch acquired = new CountDownLatch(1);
        CountDownLatch stalled = new CountDownLatch(1);
        LeaseListener events = new LeaseListener() {
            @Override
            public void acquired(long token) {
                acquired.countDown();
            }

            @Override
            public void lost(long token, LeaseLoss cause) {
                if (cause == LeaseLoss.STALLED) {
                    stalled.countDown();
                }
            }
        };
        LeaseElection election =
                new LeaseElection(h2, "billing-stalled", "a", LeaseTiming.ofMillis(3000, 2000, 100), events);
        election.setProgressDeadline(java.time.Duration.ofMillis(400));
        LeaseMeters meters = LeaseMeters.bind(registry, election);
        try {
            assertThat(registry.find("leasehold.leadership.progress.age")
                            .tags("election", "billing-stalled", "participant", "a")
                            .timeGauge())
                    .as("registered by bind, as for the recipes")
                    .isNotNull();
            election.start();
            assertThat(acquired.await(20, TimeUnit.SECONDS)).isTrue();
            assertThat(stalled.await(20, TimeUnit.SECONDS)).isTrue();
        } finally {
            election.close();
        }
        assertThat(registry.get("leasehold.leadership.losses")
                        .tag("cause", "stalled")
                        .counter()
                        .count())
                .isGreaterThanOrEqualTo(1.0);
        assertThat(registry.get("leasehold.leadership.progress.age").timeGauge().value())
                .as("0 once it does not lead")
                .isZero();
        meters.remove();
    }

    @Test
    void blankTagsAreRefused() {
        assertThatThrownBy(() -> new LeaseMeters(new SimpleMeterRegistry(), " ", "a"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("election must be a non-blank tag value");
    }
}
