package dev.leasehold.store.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.FencedSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * {@link LeaseElection}'s progress deadline (issue 27), run against every database (see the subclasses): a holder
 * whose work is stuck while its renewals still succeed gives the lease up with {@link LeaseLoss#STALLED}, releases it,
 * and a follower takes over with a higher token; a holder whose work calls {@code progress()} keeps it. Ordered with
 * the elections' own events and the statements they send; no sleeps.
 */
@Timeout(60)
abstract class LeaseProgressContract {

    /**
     * A lease far longer than the test (60 s): a follower that leads during the test leads because the stuck holder
     * released the lease, not because it expired. Renew deadline 20 s, retry period 100 ms.
     */
    static final LeaseTiming LONG_LEASE =
            new LeaseTiming(Duration.ofSeconds(60), Duration.ofSeconds(20), Duration.ofMillis(100));

    /** The database, with the schema's tables installable. */
    protected abstract DataSource dataSource();

    private LeaseLog log;
    private String name;
    private final List<LeaseElection> elections = new ArrayList<>();

    @BeforeEach
    void install(TestInfo test) throws SQLException {
        log = new LeaseLog();
        FencedSchema.install(dataSource());
        name = "progress-" + test.getTestMethod().orElseThrow().getName();
        try (Connection c = dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.execute("DELETE FROM leasehold_leases");
        }
    }

    @AfterEach
    void closeElections() {
        elections.forEach(LeaseElection::close);
    }

    private LeaseElection election(DataSource ds, String who, Duration progressDeadline) {
        LeaseElection e = new LeaseElection(ds, name, who, LONG_LEASE, log.listener(who));
        if (progressDeadline != null) {
            e.setProgressDeadline(progressDeadline);
        }
        elections.add(e);
        return e;
    }

    /**
     * The seeds' third failure: a's renewals succeed (its loop thread and connections are fine) but its work never
     * calls progress(). At the 500 ms deadline a is told STALLED, stops renewing and releases the lease by generation;
     * b, which polls every retry period, takes it with a higher token long before the 60 s lease could expire.
     */
    @Test
    void aStuckHolderIsToldStalledAndAFollowerTakesOverWithAHigherToken() throws Exception {
        LeaseElection a = election(dataSource(), "a", Duration.ofMillis(500));
        a.start();
        long first = log.acquired("a").token();
        LeaseElection b = election(dataSource(), "b", null);
        b.start();

        LeaseLog.Event lost = log.lost("a");
        LeaseLog.Event taken = log.acquired("b");

        assertThat(lost.cause()).isEqualTo(LeaseLoss.STALLED);
        assertThat(lost.token()).isEqualTo(first);
        assertThat(log.indexOf(lost)).as("a was told before b led").isLessThan(log.indexOf(taken));
        assertThat(taken.token()).isGreaterThan(first);
        assertThat(b.currentHolder()).get().extracting(LeaseHolder::holder).isEqualTo("b");
        assertThat(LeaseLog.of(log.all(), "a").get(0).toString()).isEqualTo("a acquired " + first);
    }

    /** Alone, a stuck holder gives the lease up all the same, and takes it again after sitting out: a new token. */
    @Test
    void aLoneStuckHolderTakesTheLeaseAgainWithAHigherToken() throws Exception {
        LeaseElection a = election(dataSource(), "a", Duration.ofMillis(300));
        a.start();
        long first = log.acquired("a").token();

        LeaseLog.Event lost = log.lost("a");
        LeaseLog.Event again = log.await(e -> e.acquired() && e.token() > first, "a acquired again");

        assertThat(lost.cause()).isEqualTo(LeaseLoss.STALLED);
        assertThat(again.token()).isEqualTo(first + 1);
        assertThat(log.indexOf(lost)).isLessThan(log.indexOf(again));
    }

    /**
     * A holder whose work calls progress() once per renew keeps the lease over 30 renewals (at least 3 s, twice its
     * 1.5 s deadline; a deadline that long so that a test thread starved on a loaded machine is not taken for a stall).
     */
    @Test
    void aHolderThatKeepsCallingProgressKeepsTheLease() throws Exception {
        SwitchableDataSource toA = new SwitchableDataSource(dataSource());
        LeaseElection a = election(toA, "a", Duration.ofMillis(1500));
        a.start();
        long first = log.acquired("a").token();
        LeaseElection b = election(dataSource(), "b", null);
        b.start();

        for (int renews = 0; renews < 30; renews++) {
            a.progress(); // one item of work done per renew: the work loop's call
            long seen = toA.statements();
            assertThat(toA.awaitStatements(seen + 1, 20, TimeUnit.SECONDS)).isTrue();
        }
        a.progress();

        assertThat(a.hasLeadership()).isTrue();
        assertThat(a.currentToken()).hasValue(first);
        assertThat(a.sinceProgress()).get().matches(d -> d.compareTo(Duration.ofMillis(1500)) < 0);
        assertThat(b.hasLeadership()).isFalse();
        assertThat(b.sinceProgress()).as("a follower has no progress to tell").isEmpty();
        assertThat(log.all()).extracting(LeaseLog.Event::toString).containsExactly("a acquired " + first);
    }

    @Test
    void aBadProgressDeadlineIsRefusedAtTheDoorAndProgressOutsideLeadershipIsIgnored() {
        LeaseElection a = election(dataSource(), "a", null);
        for (Duration bad : new Duration[] {
            null, Duration.ZERO, Duration.ofMillis(-1), Duration.ofDays(1).plusMillis(1)
        }) {
            assertThatThrownBy(() -> a.setProgressDeadline(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("progressDeadline must be more than 0 and at most PT24H")
                    .hasMessageEndingWith("was " + bad);
        }
        assertThat(a.progressDeadline()).isEmpty();
        a.setProgressDeadline(Duration.ofSeconds(30));
        assertThat(a.progressDeadline()).hasValue(Duration.ofSeconds(30));

        a.progress(); // not leading (not even started): ignored
        assertThat(a.sinceProgress()).isEmpty();

        a.start();
        assertThatThrownBy(() -> a.setProgressDeadline(Duration.ofSeconds(5)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("before start()");
        assertThat(a.progressDeadline()).hasValue(Duration.ofSeconds(30));
    }
}
