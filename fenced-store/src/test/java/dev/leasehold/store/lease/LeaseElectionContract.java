package dev.leasehold.store.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StaleTokenException;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.StoreException;
import dev.leasehold.store.testing.TestThreads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link LeaseElection}'s contract, run against every database (see the subclasses). Participants are real elections
 * with their own threads; a participant's way to the database is a {@link SwitchableDataSource} that a test can cut
 * off or make hang. Threads are ordered with the elections' own events and with the statements they send.
 */
@Timeout(60)
abstract class LeaseElectionContract {

    /**
     * Short timings within client-go's rules: lease 3 s, renew deadline 2 s, retry 100 ms. The 1 s between the
     * deadline and the lease is the margin by which a cut-off holder hears its loss before a follower can lead; the
     * 2 s deadline keeps a leader on a loaded machine (2 cores, several builds) from losing by starvation.
     */
    static final LeaseTiming FAST = LeaseTiming.ofMillis(3000, 2000, 100);

    /** A lease far longer than any wait in the tests: a follower that leads soon after a close leads by a release. */
    static final LeaseTiming LONG_LEASE =
            new LeaseTiming(Duration.ofSeconds(60), Duration.ofSeconds(20), Duration.ofMillis(100));

    /** The database, with the schema's tables installable. */
    protected abstract DataSource dataSource();

    @RegisterExtension
    final TestThreads threads = new TestThreads();

    /** New for every test (the subclasses may keep one instance per class). */
    LeaseLog log;

    private final List<LeaseElection> elections = new ArrayList<>();
    private String name;

    @BeforeEach
    void install(TestInfo test) throws SQLException {
        log = new LeaseLog();
        FencedSchema.install(dataSource());
        name = test.getTestMethod().orElseThrow().getName();
        execute("DELETE FROM leasehold_leases");
    }

    @AfterEach
    void closeElections() {
        elections.forEach(LeaseElection::close);
        elections.clear();
    }

    LeaseElection election(DataSource ds, String who, LeaseTiming timing) {
        return track(new LeaseElection(ds, name, who, timing, log.listener(who)));
    }

    LeaseElection track(LeaseElection election) {
        elections.add(election);
        return election;
    }

    String name() {
        return name;
    }

    @Test
    void oneHolderLeadsWithTokenOneAndTheOtherFollows() throws Exception {
        LeaseElection a = election(dataSource(), "a", FAST);
        a.start();
        assertThat(log.acquired("a").token())
                .as("the first grant of a new name")
                .isEqualTo(1);

        SwitchableDataSource toB = new SwitchableDataSource(dataSource());
        LeaseElection b = election(toB, "b", FAST);
        b.start();
        assertThat(toB.awaitStatements(4, 20, TimeUnit.SECONDS))
                .as("b tried to take the lease a few times")
                .isTrue();

        assertThat(b.hasLeadership()).isFalse();
        assertThat(b.currentToken()).isEmpty();
        assertThat(b.remaining()).isEqualTo(Duration.ZERO);
        assertThat(a.hasLeadership()).isTrue();
        assertThat(a.currentToken()).hasValue(1);
        assertThat(a.remaining()).isPositive().isLessThanOrEqualTo(FAST.renewDeadline());
        assertThat(b.currentHolder())
                .get()
                .extracting(LeaseHolder::holder, LeaseHolder::token)
                .containsExactly("a", 1L);
        assertThat(log.all()).extracting(LeaseLog.Event::toString).containsExactly("a acquired 1");
        assertThat(log.all().get(0).thread())
                .as("listeners run on the election's event thread, never on its loop thread")
                .startsWith("leasehold-lease-events[");
    }

    /**
     * The seeds' cut-off leader: a's connections fail, its renews fail, and at its renew deadline (2 s after its last
     * good renew started, on its monotonic clock) it is told RENEW_FAILED, while its lease still runs on the database
     * for about another second; only then can b take over, with a higher token.
     */
    @Test
    void aHolderCutOffFromTheDatabaseIsToldItLostBeforeTheOtherLeads() throws Exception {
        SwitchableDataSource toA = new SwitchableDataSource(dataSource());
        LeaseElection a = election(toA, "a", FAST);
        a.start();
        long first = log.acquired("a").token();
        LeaseElection b = election(dataSource(), "b", FAST);
        b.start();

        toA.cutOff();
        LeaseLog.Event lost = log.lost("a");
        LeaseLog.Event taken = log.acquired("b");

        assertThat(lost.cause()).isEqualTo(LeaseLoss.RENEW_FAILED);
        assertThat(lost.token()).isEqualTo(first);
        assertThat(log.indexOf(lost)).as("a was told before b led").isLessThan(log.indexOf(taken));
        assertThat(taken.token()).isGreaterThan(first);
        assertThat(a.hasLeadership()).isFalse();
        assertThat(a.currentToken()).isEmpty();
        assertThat(b.currentToken()).hasValue(taken.token());
    }

    /**
     * A renew that never returns (a network that swallows packets, or this process paused): the loss comes from the
     * renew deadline on the event thread, not from the stuck loop thread, as RENEW_FAILED (issue 25: the renew got no
     * answer; STALLED is the progress deadline's cause, never the renew's).
     */
    @Test
    void aHolderWhoseRenewHangsIsToldRenewFailedAtItsDeadline() throws Exception {
        SwitchableDataSource toA = new SwitchableDataSource(dataSource());
        LeaseElection a = election(toA, "a", FAST);
        a.start();
        long first = log.acquired("a").token();
        LeaseElection b = election(dataSource(), "b", FAST);
        b.start();
        try {
            toA.hang();
            LeaseLog.Event lost = log.lost("a");
            LeaseLog.Event taken = log.acquired("b");
            assertThat(lost.cause()).isEqualTo(LeaseLoss.RENEW_FAILED);
            assertThat(log.indexOf(lost)).isLessThan(log.indexOf(taken));
            assertThat(taken.token()).isGreaterThan(first);
        } finally {
            toA.restore();
        }
    }

    /**
     * A graceful close: the token is withdrawn at once, the listener's lost(CLOSED) runs while the row still names
     * a, the release follows only after it returned, and b leads long before the 60 s lease could have expired.
     */
    @Test
    void closeReleasesOnlyAfterLostReturnedAndAFollowerLeadsWithoutWaitingForTheLease() throws Exception {
        CountDownLatch inLost = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        LeaseListener recording = log.listener("a");
        LeaseElection a = track(new LeaseElection(dataSource(), name(), "a", LONG_LEASE, new LeaseListener() {
            @Override
            public void acquired(long token) {
                recording.acquired(token);
            }

            @Override
            public void lost(long token, LeaseLoss cause) {
                recording.lost(token, cause);
                inLost.countDown();
                try {
                    letGo.await(); // the leader's work stopping
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }));
        a.start();
        long first = log.acquired("a").token();
        SwitchableDataSource toB = new SwitchableDataSource(dataSource());
        LeaseElection b = election(toB, "b", LONG_LEASE);
        b.start();
        assertThat(toB.awaitStatements(3, 20, TimeUnit.SECONDS)).isTrue();

        Future<?> closing = threads.fixed(1).submit(a::close);
        assertThat(inLost.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(a.hasLeadership())
                .as("withdrawn before the listener is told")
                .isFalse();
        assertThat(b.currentHolder())
                .as("not released while lost() runs")
                .get()
                .extracting(LeaseHolder::holder)
                .isEqualTo("a");
        assertThat(closing.isDone()).isFalse();

        letGo.countDown();
        closing.get(20, TimeUnit.SECONDS);
        assertThat(log.lost("a").cause()).isEqualTo(LeaseLoss.CLOSED);
        LeaseLog.Event taken = log.acquired("b");
        assertThat(taken.token()).isEqualTo(first + 1);
        a.close(); // idempotent
        assertThat(LeaseLog.of(log.all(), "a")).hasSize(2);
    }

    @Test
    void tokensGrowAcrossHoldersAndAcrossAReleaseAndARetakeBySameHolder() throws Exception {
        LeaseElection a1 = election(dataSource(), "a", FAST);
        a1.start();
        long t1 = log.acquired("a").token();
        a1.close();
        LeaseElection b = election(dataSource(), "b", FAST);
        b.start();
        long t2 = log.acquired("b").token();
        b.close();
        LeaseElection a2 = election(dataSource(), "a2", FAST);
        a2.start();
        long t3 = log.acquired("a2").token();
        a2.close();
        // the same holder id again, after its own release
        LeaseElection a3 = track(new LeaseElection(dataSource(), name(), "a2", FAST, log.listener("a3")));
        a3.start();
        long t4 = log.acquired("a3").token();

        assertThat(List.of(t1, t2, t3, t4)).containsExactly(1L, 2L, 3L, 4L);
    }

    @Test
    void badNamesHoldersAndArgumentsAreRefusedBeforeAnythingIsWritten() throws SQLException {
        LeaseListener listener = log.listener("x");
        for (String bad : List.of("", "   ", " billing", "billing ", "bill\ning", "x".repeat(201))) {
            assertThatThrownBy(() -> new LeaseElection(dataSource(), bad, "a", FAST, listener))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("name must");
            assertThatThrownBy(() -> new LeaseElection(dataSource(), "billing", bad, FAST, listener))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("holder must");
        }
        assertThatThrownBy(() -> new LeaseElection(dataSource(), null, "a", FAST, listener))
                .hasMessage("name must be a non-blank string, was null");
        assertThatThrownBy(() -> new LeaseElection(null, "billing", "a", FAST, listener))
                .hasMessage("dataSource must not be null");
        assertThatThrownBy(() -> new LeaseElection(dataSource(), "billing", "a", null, listener))
                .hasMessageStartingWith("timing must not be null");
        assertThatThrownBy(() -> new LeaseElection(dataSource(), "billing", "a", FAST, null))
                .hasMessage("listener must not be null");
        assertThatThrownBy(() -> new LeaseElection(dataSource(), "billing", "a", FAST, listener, null))
                .hasMessageStartingWith("config must not be null");
        assertThatThrownBy(() -> LeaseTiming.ofMillis(400, 600, 100)).hasMessageContaining("leaseDuration must be");

        assertThat(rows()).as("nothing was written").isZero();
    }

    /** The token is a fencing token: after b took over, the gate refuses a's late write with a's token. */
    @Test
    void theTokensFenceAStaleLeaderAtTheGate() throws Exception {
        FenceGate gate = new FenceGate(dataSource());
        String ledger = "ledger-" + name() + "-" + System.nanoTime(); // a database kept between runs (PgBouncer's)
        SwitchableDataSource toA = new SwitchableDataSource(dataSource());
        LeaseElection a = election(toA, "a", FAST);
        a.start();
        long stale = log.acquired("a").token();
        gate.advance(ledger, stale);
        LeaseElection b = election(dataSource(), "b", FAST);
        b.start();

        toA.cutOff(); // a is cut off from the lease table; its late write reaches the resource all the same
        long fresh = log.acquired("b").token();
        gate.advance(ledger, fresh);

        assertThatThrownBy(() -> gate.write(ledger, stale, tx -> {}))
                .isInstanceOf(StaleTokenException.class)
                .hasMessageContaining(String.valueOf(fresh));
        assertThat(gate.highestToken(ledger)).hasValue(fresh);
    }

    @Test
    void aRowTakenByAnotherGrantIsToldTakenOver() throws Exception {
        LeaseElection a = election(dataSource(), "a", FAST);
        a.start();
        long first = log.acquired("a").token();

        // by hand, with a lease that outlives the test (so a, now a follower, cannot take it back)
        execute("UPDATE leasehold_leases SET holder = 'intruder', generation = generation + 1, lease_until ="
                + " TIMESTAMP '2999-01-01 00:00:00' WHERE name = '" + name() + "'");

        LeaseLog.Event lost = log.lost("a");
        assertThat(lost.cause()).isEqualTo(LeaseLoss.TAKEN_OVER);
        assertThat(lost.token()).isEqualTo(first);
        assertThat(a.currentHolder()).get().extracting(LeaseHolder::holder).isEqualTo("intruder");
    }

    /** A listener blocked longer than the lease (the leader's slow start-up): the renews go on meanwhile. */
    @Test
    void aSlowListenerNeverDelaysTheRenews() throws Exception {
        CountDownLatch inAcquired = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        SwitchableDataSource toA = new SwitchableDataSource(dataSource());
        LeaseElection a = track(new LeaseElection(toA, name(), "a", FAST, new LeaseListener() {
            @Override
            public void acquired(long token) {
                inAcquired.countDown();
                try {
                    letGo.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public void lost(long token, LeaseLoss cause) {}
        }));
        a.addListener(new LeaseListener() {
            @Override
            public void acquired(long token) {
                throw new IllegalStateException("a listener that throws (test)");
            }

            @Override
            public void lost(long token, LeaseLoss cause) {
                throw new IllegalStateException("a listener that throws (test)");
            }
        });
        a.start();
        assertThat(inAcquired.await(20, TimeUnit.SECONDS)).isTrue();
        LeaseElection b = election(dataSource(), "b", FAST);
        b.start();

        long seen = toA.statements();
        // 35 renews, 100 ms apart: longer than the lease duration
        assertThat(toA.awaitStatements(seen + 35, 40, TimeUnit.SECONDS)).isTrue();
        assertThat(a.hasLeadership()).isTrue();
        assertThat(b.hasLeadership()).isFalse();
        assertThat(a.currentHolder()).get().extracting(LeaseHolder::holder).isEqualTo("a");
        letGo.countDown();
        a.close();
        assertThat(log.acquired("b").token())
                .as("the throwing listener broke nothing")
                .isEqualTo(2);
    }

    @Test
    void currentHolderIsEmptyWithoutAHolderAndAMissingTableSaysWhatToDo() {
        LeaseElection a = election(dataSource(), "a", FAST);
        assertThat(a.currentHolder()).isEmpty();
        assertThat(a.hasLeadership()).isFalse();

        LeaseElection elsewhere = track(new LeaseElection(
                dataSource(),
                name(),
                "a",
                FAST,
                log.listener("a"),
                StoreConfig.defaults().withTablePrefix("nolease_")));
        assertThatThrownBy(elsewhere::currentHolder)
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("nolease_leases does not exist")
                .hasMessageContaining("FencedSchema.install");
    }

    @Test
    void startTwiceIsRefusedAndCloseWithoutStartIsFine() {
        LeaseElection a = election(dataSource(), "a", FAST);
        a.start();
        assertThatThrownBy(a::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("STARTED");
        LeaseElection idle = election(dataSource(), "idle", FAST);
        idle.close();
        idle.close();
        assertThatThrownBy(idle::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CLOSED");
    }

    int rows() throws SQLException {
        try (Connection c = dataSource().getConnection();
                PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM leasehold_leases");
                ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }

    void execute(String sql) throws SQLException {
        try (Connection c = dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
