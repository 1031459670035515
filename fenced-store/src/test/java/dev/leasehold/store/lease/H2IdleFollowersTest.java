package dev.leasehold.store.lease;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.store.FencedSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The load of idle followers: 100 elections on one name, one leads, the others try once per retry period. What each
 * follower costs is counted (statements prepared through its data source), not timed: a follower never tries more
 * than once per retry period, whatever the machine's speed, so the count bounds the load.
 */
@Timeout(60)
class H2IdleFollowersTest {

    private static final int FOLLOWERS = 100;
    /** Followers try every 200 ms; the leader's 10 s deadline keeps it leading on a loaded machine. */
    private static final LeaseTiming TIMING = LeaseTiming.ofMillis(20_000, 10_000, 200);

    @Test
    void aHundredIdleFollowersCostAtMostOneStatementEachPerRetryPeriod() throws Exception {
        JdbcDataSource plain = new JdbcDataSource();
        plain.setURL("jdbc:h2:mem:idle-followers;DB_CLOSE_DELAY=-1");
        FencedSchema.install(plain);
        HikariConfig pool = new HikariConfig();
        pool.setDataSource(plain);
        pool.setMaximumPoolSize(8);
        HikariDataSource h2 = new HikariDataSource(pool); // a pool, as applications have
        LeaseLog log = new LeaseLog();
        List<LeaseElection> elections = new ArrayList<>();
        List<SwitchableDataSource> followers = new ArrayList<>();
        try {
            LeaseElection leader = new LeaseElection(h2, "idle", "leader", TIMING, log.listener("leader"));
            elections.add(leader);
            leader.start();
            log.acquired("leader");
            for (int i = 0; i < FOLLOWERS; i++) {
                SwitchableDataSource ds = new SwitchableDataSource(h2);
                LeaseElection follower = new LeaseElection(ds, "idle", "f" + i, TIMING, log.listener("f" + i));
                elections.add(follower);
                followers.add(ds);
                follower.start();
            }
            for (SwitchableDataSource ds : followers) {
                assertThat(ds.awaitStatements(2, 20, TimeUnit.SECONDS)).isTrue(); // the first try: UPDATE + INSERT
            }
            long before = total(followers);
            long start = System.nanoTime();
            // a window of several retry periods: the followers run on their own meanwhile (not a synchronisation)
            TimeUnit.MILLISECONDS.sleep(2_000);
            long statements = total(followers) - before;
            double periods =
                    (System.nanoTime() - start) / (double) TIMING.retryPeriod().toNanos();

            double perFollowerPerPeriod = statements / (FOLLOWERS * periods);
            System.out.printf(
                    "idle followers: %d followers, %.1f retry periods of %d ms, %d statements: %.2f statements per"
                            + " follower per retry period%n",
                    FOLLOWERS, periods, TIMING.retryPeriod().toMillis(), statements, perFollowerPerPeriod);
            assertThat(statements)
                    .as("at most one try per follower per retry period, plus the one in flight")
                    .isLessThanOrEqualTo((long) (FOLLOWERS * (periods + 1)));
            assertThat(statements).as("the followers keep trying").isPositive();
            assertThat(log.all()).extracting(LeaseLog.Event::toString).containsExactly("leader acquired 1");
        } finally {
            elections.forEach(LeaseElection::close);
            h2.close();
        }
    }

    private static long total(List<SwitchableDataSource> sources) {
        return sources.stream().mapToLong(SwitchableDataSource::statements).sum();
    }
}
