package dev.leasehold.store.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.StoreException;
import dev.leasehold.store.testing.SharedPostgres;
import dev.leasehold.store.testing.TestThreads;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 41, item 7: a PostgreSQL claim that meets a lock wait SKIP LOCKED cannot avoid is made again by the store, a
 * bounded number of times, instead of handing the lock timeout to the caller.
 *
 * <p>The waits a claim meets on PostgreSQL are on a row's update chain (the claimer of the row committed an instant
 * before, and its finish holds the new version) and on no row (the relation extension lock). Neither can be held
 * open from outside: the chain wait needs the row's updater to end inside one call of the claimer's backend, between
 * its look at the row (updater running) and its conditional wait (updater gone), and the extension lock is held only
 * while a page is added. So the retry is shown on a wait of the second kind that a test can hold: a lock on the whole
 * table, which PostgreSQL reports as the extension lock's timeout is reported, with no row in its context. Each attempt
 * of the claim opens its own connection (the data source pools nothing), so each attempt is a server process of its
 * own, and the test sees attempts as the processes waiting on the table. {@link
 * #aClaimSkipsTheNewVersionOfARowWhoseUpdaterCommittedBeforeTheClaimLooked} shows why the outside timeline of the
 * chain wait does not produce it. The chain wait's own report is read in {@code PostgresSkipLockedWaitsTest}.
 */
@Timeout(120)
class PostgresClaimRetryTest {

    /** Long enough that the test sees each attempt waiting on a loaded machine; short enough to keep the test short. */
    private static final Duration LOCK_TIMEOUT = Duration.ofMillis(300);

    private static DataSource database;

    @RegisterExtension
    final TestThreads threads = new TestThreads();

    private BatchClaims claims;

    @BeforeAll
    static void database() {
        database = SharedPostgres.freshDatabase("claim_retry");
        FencedSchema.install(database, StoreConfig.defaults());
    }

    @BeforeEach
    void queue() throws SQLException {
        try (Connection c = database.getConnection();
                Statement s = c.createStatement()) {
            s.execute("DELETE FROM leasehold_batches");
        }
        claims = new BatchClaims(database, StoreConfig.defaults().withLockTimeout(LOCK_TIMEOUT));
        claims.enqueue("b1", "p1");
        claims.enqueue("b2", "p2");
    }

    /**
     * Timeline: another session locks the batches table; a claim starts and waits on it; its lock timeout ends the
     * wait; the store makes the claim again (a new attempt waits: a second server process); the table is let go; that
     * attempt claims the oldest batch. On main the claim failed at the first timeout with a {@link StoreException},
     * and no second attempt ever waited.
     */
    @Test
    void aClaimWhoseLockWaitOnNoClaimersRowTimedOutIsMadeAgainByTheStore() throws Exception {
        try (Connection holder = database.getConnection()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("LOCK TABLE leasehold_batches IN ACCESS EXCLUSIVE MODE");
            }
            Future<Optional<BatchClaim>> claim =
                    threads.fixed(1).submit(() -> claims.claimNext("worker", Duration.ofMinutes(1)));

            Set<Integer> attempts = attemptsSeen(holder, claim, 2);
            assertThat(attempts)
                    .as("server processes of the claim seen waiting on the table before the claim ended: the store"
                            + " made the claim again after its lock timeout")
                    .hasSize(2);
            holder.rollback(); // let the table go: the waiting attempt goes on
            assertThat(claim.get(30, TimeUnit.SECONDS))
                    .get()
                    .satisfies(c -> assertThat(c.batchId()).isEqualTo("b1"))
                    .satisfies(c -> assertThat(c.fence()).isEqualTo(1));
        }
        assertThat(claims.state("b1")).get().extracting(BatchState::attempts).isEqualTo(1);
        assertThat(claims.state("b2")).get().extracting(BatchState::status).isEqualTo(BatchClaims.PENDING);
    }

    /**
     * The retry is bounded: a lock held longer than five attempts fails the claim with a retryable lock timeout that
     * says how often it was tried, and nothing was claimed. On main: one attempt, no count.
     */
    @Test
    void aClaimGivesUpAfterFiveAttemptsWithARetryableLockTimeout() throws Exception {
        try (Connection holder = database.getConnection()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("LOCK TABLE leasehold_batches IN ACCESS EXCLUSIVE MODE");
            }
            assertThatThrownBy(() -> claims.claimUpTo("worker", Duration.ofMinutes(1), 2))
                    .isInstanceOfSatisfying(
                            StoreException.class, e -> assertThat(e.retryable()).isTrue())
                    .hasMessageContaining("claiming up to 2 batches for 'worker' (tried 5 times) failed")
                    .hasMessageContaining("lock timeout");
            holder.rollback();
        }
        assertThat(claims.state("b1")).get().extracting(BatchState::status).isEqualTo(BatchClaims.PENDING);
        assertThat(claims.claimUpTo("worker", Duration.ofMinutes(1), 2)).hasSize(2);
    }

    /**
     * The outside timeline of the update-chain wait: a claimer's update of {@code b1} committed, its finish locks the
     * new version and stays open, then a claim with a 1 ms lock timeout comes. The claim does not wait: its snapshot,
     * taken after the update committed, shows it the newest version, which is locked, so SKIP LOCKED skips it and the
     * claim takes {@code b2}. (Had its snapshot shown the old version, PostgreSQL would have found that version's
     * updater ended and followed the chain to the newest version with the SKIP LOCKED policy too.) The wait needs the
     * updater to end while the claim is between its two looks at the row, which no outside timeline can arrange.
     */
    @Test
    void aClaimSkipsTheNewVersionOfARowWhoseUpdaterCommittedBeforeTheClaimLooked() throws Exception {
        BatchClaims impatient = new BatchClaims(database, StoreConfig.defaults().withLockTimeout(Duration.ofMillis(1)));
        BatchClaim first = claims.claimNext("first", Duration.ofMillis(1)).orElseThrow(); // b1, committed
        try (Connection finisher = database.getConnection()) {
            finisher.setAutoCommit(false);
            try (Statement s = finisher.createStatement()) {
                s.execute("SELECT id FROM leasehold_batches WHERE id = '" + first.batchId() + "' FOR UPDATE");
            }
            // b1's lease (1 ms) ended: claimable as an expired lease, but its newest version is locked
            assertThat(impatient.claimNext("second", Duration.ofMinutes(1)))
                    .get()
                    .extracting(BatchClaim::batchId)
                    .isEqualTo("b2");
            finisher.rollback();
        }
    }

    /**
     * The server processes of {@code claim} seen waiting for a lock on the batches table, until {@code enough} were
     * seen or the claim ended. Polls the server's lock table every millisecond: the observation of a wait, not an
     * order imposed by time.
     */
    private static Set<Integer> attemptsSeen(Connection holder, Future<?> claim, int enough) throws SQLException {
        Set<Integer> seen = new LinkedHashSet<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int holding = pid(holder);
        try (Connection watcher = database.getConnection();
                Statement s = watcher.createStatement()) {
            while (seen.size() < enough && !claim.isDone() && System.nanoTime() < deadline) {
                try (ResultSet rs = s.executeQuery("SELECT pid FROM pg_locks WHERE NOT granted AND locktype ="
                        + " 'relation' AND relation = 'leasehold_batches'::regclass AND pid <> " + holding)) {
                    while (rs.next()) {
                        seen.add(rs.getInt(1));
                    }
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
        }
        return seen;
    }

    private static int pid(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
