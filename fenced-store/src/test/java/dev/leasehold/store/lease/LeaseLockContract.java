package dev.leasehold.store.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.internal.Jdbc;
import dev.leasehold.store.testing.TestThreads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link LeaseLock}'s contract, run against every database (see the subclasses). Two "processes" are two
 * {@code LeaseLock} instances, each on a Hikari pool of its own (the second with auto-commit off, as some applications
 * configure their pools: its holds are seen by the first only if the lock commits them itself). Expiry is by the database's clock: a test that needs a hold to expire sleeps past its short
 * ttl, which stands for a holder paused (GC, SIGSTOP) past it; that is the only use of {@code Thread.sleep}.
 */
@Timeout(60)
abstract class LeaseLockContract {

    /** Far longer than any test: a hold with it ends only by unlock or release. */
    static final Duration LONG = Duration.ofMinutes(5);

    /**
     * A ttl short enough to wait out in a test, long enough for the few statements a test makes inside it on a loaded
     * machine (300 ms failed at load 22 to 27, on MariaDB and through PgBouncer).
     */
    static final Duration SHORT = Duration.ofSeconds(1);

    /**
     * What a release keeps the lock for before another may take it: long enough that the next statement surely runs
     * inside it on a loaded machine (a verify failed with 300 ms at load 22 on MariaDB), short enough to wait out.
     */
    static final Duration KEPT = Duration.ofSeconds(2);

    /** The database, with the schema's tables installable. */
    protected abstract DataSource dataSource();

    @RegisterExtension
    final TestThreads threads = new TestThreads();

    private final List<HikariDataSource> pools = new ArrayList<>();
    private String name;
    /** Process one's lock, on a pool with auto-commit on. */
    LeaseLock one;
    /** Process two's lock, on another pool, with auto-commit off. */
    LeaseLock two;

    @BeforeEach
    void install(TestInfo test) throws SQLException {
        FencedSchema.install(dataSource());
        name = test.getTestMethod().orElseThrow().getName();
        execute("DELETE FROM leasehold_leases WHERE name = '" + name + "'"); // this test's row only: tests may share it
        one = new LeaseLock(pool(true));
        two = new LeaseLock(pool(false));
    }

    @AfterEach
    void closePools() {
        pools.forEach(HikariDataSource::close);
        pools.clear();
    }

    private DataSource pool(boolean autoCommit) {
        HikariConfig config = new HikariConfig();
        config.setDataSource(dataSource());
        config.setAutoCommit(autoCommit);
        config.setMaximumPoolSize(4);
        config.setMinimumIdle(0);
        HikariDataSource pool = new HikariDataSource(config);
        pools.add(pool);
        return pool;
    }

    @Test
    void oneHoldsTheOtherIsRefusedUntilItUnlocks() {
        LeaseLock.Hold a = one.tryLock(name, "a", LONG).orElseThrow();
        assertThat(a.token()).as("the first hold of a new name").isEqualTo(1);
        assertThat(a.name()).isEqualTo(name);
        assertThat(a.holder()).isEqualTo("a");
        assertThat(a.holdId()).startsWith("a#").hasSize("a".length() + 17);

        assertThat(two.tryLock(name, "b", LONG)).as("held by a").isEmpty();
        assertThat(one.tryLock(name, "a", LONG))
                .as("not reentrant: a second hold is refused")
                .isEmpty();

        assertThat(one.unlock(a)).isTrue();
        LeaseLock.Hold b = two.tryLock(name, "b", LONG).orElseThrow();
        assertThat(b.token()).isEqualTo(2);
        assertThat(one.unlock(a)).as("a's hold ended with its unlock").isFalse();
        assertThat(one.renew(a, LONG))
                .as("a renew never revives an unlocked hold")
                .isFalse();
        assertThat(one.tryLock(name, "a", LONG)).as("still b's").isEmpty();
        assertThat(two.unlock(b)).isTrue();
    }

    @Test
    void tokensRiseWithEveryAcquisitionAlsoAfterUnlockAndExpiry() throws Exception {
        List<Long> tokens = new ArrayList<>();
        LeaseLock.Hold first = one.tryLock(name, "a", LONG).orElseThrow();
        tokens.add(first.token());
        one.unlock(first);
        LeaseLock.Hold again = one.tryLock(name, "a", LONG).orElseThrow(); // same holder, after an unlock
        tokens.add(again.token());
        two.unlock(again); // another instance may unlock a hold it was handed
        LeaseLock.Hold brief = two.tryLock(name, "b", SHORT).orElseThrow();
        tokens.add(brief.token());
        pausePast(brief); // simulated pause: b's hold expires, b never unlocks
        LeaseLock.Hold afterExpiry = one.tryLock(name, "b", LONG).orElseThrow(); // even b's own id again
        tokens.add(afterExpiry.token());

        assertThat(tokens).containsExactly(1L, 2L, 3L, 4L);
        assertThat(two.renew(brief, LONG)).as("the expired hold").isFalse();
        assertThat(one.renew(afterExpiry, LONG)).isTrue();
    }

    @Test
    void renewExtendsTheHoldByTheDatabasesClock() throws Exception {
        LeaseLock.Hold a = one.tryLock(name, "a", SHORT).orElseThrow();
        assertThat(a.until()).as("the hold's end is the row's").isEqualTo(leaseUntil());

        assertThat(one.renew(a, LONG)).isTrue();
        assertThat(leaseUntil()).isAfter(a.until().plus(LONG).minus(SHORT));
        pausePast(a); // simulated pause: past the ttl the hold was taken with, not past the renewed one
        assertThat(two.tryLock(name, "b", LONG)).as("renewed, so still held").isEmpty();
        assertThat(one.renew(a, SHORT)).as("a shorter ttl shortens the hold").isTrue();
        assertThat(leaseUntil()).isBefore(a.until().plus(LONG));
        assertThat(one.unlock(a)).isTrue();
    }

    @Test
    void anExpiredHoldCannotBeRenewedOrUnlockedWhetherOrNotSomeoneTookTheLock() throws Exception {
        LeaseLock.Hold a = one.tryLock(name, "a", SHORT).orElseThrow();
        pausePast(a); // simulated pause: a's hold expires, nobody takes the lock
        assertThat(one.renew(a, LONG)).as("renew after expiry, lock free").isFalse();
        assertThat(one.unlock(a)).as("unlock after expiry, lock free").isFalse();

        LeaseLock.Hold a2 = one.tryLock(name, "a", SHORT).orElseThrow();
        pausePast(a2); // simulated pause again
        LeaseLock.Hold b = two.tryLock(name, "b", LONG).orElseThrow();
        assertThat(one.renew(a2, LONG)).as("renew after loss").isFalse();
        assertThat(one.unlock(a2)).as("unlock after loss").isFalse();
        assertThat(one.release(a2, Duration.ZERO)).as("release after loss").isFalse();
        assertThat(b.token()).isGreaterThan(a2.token());
        assertThat(one.tryLock(name, "a", LONG)).as("b's hold was untouched").isEmpty();
        assertThat(two.renew(b, LONG)).isTrue();
    }

    /**
     * Issue 45: one holder id configured in two processes. Process two cannot take the held lock, and a hold it makes
     * of the same name, holder and token (what it would have if holds were told apart by holder id alone) neither
     * renews nor unlocks process one's. After one's hold expired and two took the lock, one's renew and unlock fail.
     */
    @Test
    void oneHolderIdInTwoProcessesNeverHoldsTwice() throws Exception {
        LeaseLock.Hold first = one.tryLock(name, "worker", SHORT).orElseThrow();
        assertThat(two.tryLock(name, "worker", LONG))
                .as("same holder id, other process")
                .isEmpty();
        LeaseLock.Hold lookalike = new LeaseLock.Hold(first.token(), name, "worker", first.until());
        assertThat(two.renew(lookalike, LONG)).isFalse();
        assertThat(two.unlock(lookalike)).isFalse();
        assertThat(two.release(lookalike, LONG)).isFalse();
        assertThat(two.tryLock(name, "worker", LONG)).as("still process one's").isEmpty();

        pausePast(first); // simulated pause: process one stops past its ttl
        LeaseLock.Hold second = two.tryLock(name, "worker", LONG).orElseThrow();
        assertThat(one.renew(first, LONG)).as("process one's late renew").isFalse();
        assertThat(one.unlock(first)).as("process one's late unlock").isFalse();
        assertThat(one.tryLock(name, "worker", LONG)).as("process two holds it").isEmpty();
        assertThat(second.token()).isGreaterThan(first.token());
        assertThat(second.holder()).isEqualTo(first.holder()).isEqualTo("worker");
        assertThat(second.holdId()).isNotEqualTo(first.holdId());
    }

    @Test
    void contendersAtOneInstantGetOneHold() throws Exception {
        one.unlock(one.tryLock(name, "setup", LONG).orElseThrow()); // the row exists: every try is one UPDATE
        int n = 8;
        ExecutorService pool = threads.fixed(n);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Optional<LeaseLock.Hold>>> tries = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            LeaseLock lock = i % 2 == 0 ? one : two;
            String holder = "worker"; // one id for all: still one hold
            tries.add(pool.submit(() -> {
                start.await();
                return lock.tryLock(name, holder, LONG);
            }));
        }
        start.countDown();
        List<LeaseLock.Hold> holds = new ArrayList<>();
        for (Future<Optional<LeaseLock.Hold>> t : tries) {
            t.get().ifPresent(holds::add);
        }
        assertThat(holds).hasSize(1);
        assertThat(holds.get(0).token()).isEqualTo(2);
    }

    @Test
    void aNewNameRacedByTwoProcessesIsCreatedOnce() throws Exception {
        ExecutorService pool = threads.fixed(2);
        CountDownLatch start = new CountDownLatch(1);
        Future<Optional<LeaseLock.Hold>> a = pool.submit(() -> {
            start.await();
            return one.tryLock(name, "a", LONG);
        });
        Future<Optional<LeaseLock.Hold>> b = pool.submit(() -> {
            start.await();
            return two.tryLock(name, "b", LONG);
        });
        start.countDown();
        assertThat(List.of(a.get(), b.get())).filteredOn(Optional::isPresent).hasSize(1);
        assertThat(rows()).isEqualTo(1);
    }

    /** ShedLock's unlock with lockAtLeastFor: the lock stays taken for what remains of it, never longer. */
    @Test
    void aReleaseKeepsTheLockForTheGivenTimeButNeverLengthensIt() throws Exception {
        LeaseLock.Hold a = one.tryLock(name, "a", LONG).orElseThrow();
        assertThat(one.release(a, KEPT)).isTrue();
        assertThat(two.tryLock(name, "b", LONG)).as("kept for KEPT").isEmpty();
        pausePast(Instant.now().plus(KEPT)); // simulated pause: the time kept passes
        LeaseLock.Hold b = two.tryLock(name, "b", SHORT).orElseThrow();
        assertThat(b.token()).isEqualTo(2);

        assertThat(two.release(b, LONG)).isTrue();
        assertThat(leaseUntil()).as("never lengthened").isEqualTo(b.until());
        assertThat(two.release(b, Duration.ZERO)).as("zero: the same as unlock").isTrue();
        assertThat(one.tryLock(name, "a", LONG)).isPresent();
    }

    @Test
    void badInputIsRefusedAndNothingIsWritten() throws Exception {
        for (String bad : List.of("", "   ", " job", "job ", "jo\nb", "jo\u0000b", "x".repeat(201))) {
            assertThatThrownBy(() -> one.tryLock(bad, "a", LONG))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("name must");
            assertThatThrownBy(() -> one.tryLock(name, bad, LONG))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("holder must");
        }
        assertThatThrownBy(() -> one.tryLock(null, "a", LONG)).hasMessageContaining("name must be a non-blank");
        assertThatThrownBy(() -> one.tryLock(name, null, LONG)).hasMessageContaining("holder must be a non-blank");
        for (Duration bad :
                List.of(Duration.ZERO, Duration.ofMillis(-1), Duration.ofNanos(999_999), Duration.ofDays(366))) {
            assertThatThrownBy(() -> one.tryLock(name, "a", bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("ttl must be from 1 ms to");
        }
        assertThatThrownBy(() -> one.tryLock(name, "a", null)).hasMessageContaining("ttl must be");
        assertThat(rows()).as("nothing written").isZero();

        LeaseLock.Hold a = one.tryLock(name, "a", LONG).orElseThrow();
        Instant until = leaseUntil();
        assertThatThrownBy(() -> one.renew(null, LONG)).hasMessageContaining("hold must not be null");
        assertThatThrownBy(() -> one.unlock(null)).hasMessageContaining("hold must not be null");
        assertThatThrownBy(() -> one.release(null, SHORT)).hasMessageContaining("hold must not be null");
        assertThatThrownBy(() -> one.renew(a, Duration.ZERO)).hasMessageContaining("ttl must be from 1 ms");
        assertThatThrownBy(() -> one.release(a, Duration.ofMillis(-1)))
                .hasMessageContaining("keepFor must be from 0 ms");
        assertThatThrownBy(() -> new LeaseLock.Hold(0, name, "a", until)).hasMessageContaining("positive token");
        assertThatThrownBy(() -> new LeaseLock(null)).hasMessageContaining("dataSource must not be null");
        assertThatThrownBy(() -> new LeaseLock(dataSource(), null)).hasMessageContaining("config must not be null");
        assertThat(leaseUntil()).as("the hold unchanged").isEqualTo(until);
        assertThat(one.unlock(a)).isTrue();
    }

    /**
     * Simulated pause: sleeps until {@code hold}, taken or last renewed with {@link #SHORT}, ended (with a margin for
     * the clocks' resolution). Its {@code until()} is the database's clock, not comparable with this machine's.
     */
    static void pausePast(LeaseLock.Hold hold) throws InterruptedException {
        Thread.sleep(SHORT.toMillis() + 150);
    }

    /** Simulated pause: sleeps past {@code instant} of this machine's clock, with a margin. */
    static void pausePast(Instant instant) throws InterruptedException {
        Thread.sleep(Math.max(0, Duration.between(Instant.now(), instant).toMillis()) + 150);
    }

    private Instant leaseUntil() throws SQLException {
        return query("SELECT lease_until FROM leasehold_leases WHERE name = ?", r -> Jdbc.instant(r, "lease_until"));
    }

    private long rows() throws SQLException {
        return query("SELECT COUNT(*) AS n FROM leasehold_leases WHERE name = ?", r -> r.getLong("n"));
    }

    private <T> T query(String sql, Jdbc.Row<T> row) throws SQLException {
        try (Connection c = dataSource().getConnection();
                PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, name);
            try (ResultSet r = s.executeQuery()) {
                assertThat(r.next()).as("a row for " + name).isTrue();
                return row.map(r);
            }
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.executeUpdate(sql);
            if (!c.getAutoCommit()) {
                c.commit();
            }
        }
    }
}
