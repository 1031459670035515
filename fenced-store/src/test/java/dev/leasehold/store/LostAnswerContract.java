package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.leasehold.store.claims.BatchClaim;
import dev.leasehold.store.claims.BatchClaims;
import dev.leasehold.store.claims.BatchState;
import dev.leasehold.store.slots.SlotClaim;
import dev.leasehold.store.slots.SlotRuns;
import dev.leasehold.store.testing.AnswerDroppingProxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 21, defect 3: a store statement that commits on its own (auto-commit), whose answer is lost after the server
 * ran it, is a {@link CommitOutcomeUnknownException} that says what to do, never a retryable "nothing was kept" (a
 * retry of a finish that committed reports the claim lost; of an enqueue, a duplicate). An {@link AnswerDroppingProxy}
 * between the driver and the real server forwards the chosen statement and drops its answer; each test then reads,
 * directly, that the server did commit it. A statement inside a transaction whose answer is lost is still a
 * retryable failure with nothing kept, and so is a lost read. Run against every database (see the subclasses).
 */
@Timeout(60)
abstract class LostAnswerContract {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Instant SLOT = Instant.parse("2026-03-01T03:00:00Z");

    /** The database, directly. */
    protected abstract DataSource direct();

    /** The same database through a proxy listening on {@code port}. */
    protected abstract DataSource through(int port);

    /** The server's host and port, for the proxy. */
    protected abstract String host();

    protected abstract int port();

    /**
     * Requests the driver sends for a statement after the one that holds its text (H2 prepares in one request and
     * executes in the next: 1); 0 where the text travels with the execution.
     */
    protected int requestsAfterText() {
        return 0;
    }

    /** Whether claimNext, claimUpTo and finishAll are one statement committed on its own (PostgreSQL). */
    protected abstract boolean oneStatementClaims();

    /** Whether {@link FenceGate#update} of a token the gate saw pass is one auto-commit round trip (PostgreSQL). */
    protected abstract boolean updateInOneRoundTrip();

    private AnswerDroppingProxy proxy;
    private BatchClaims batches;
    private BatchClaims lossy;
    private SlotRuns slots;
    private SlotRuns lossySlots;

    /** The databases whose schema this JVM installed already (an install per test costs round trips for nothing). */
    private static final java.util.Set<DataSource> INSTALLED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    @BeforeEach
    void startProxy() throws Exception {
        if (INSTALLED.add(direct())) {
            FencedSchema.install(direct());
        }
        try (Connection c = direct().getConnection();
                Statement s = c.createStatement()) {
            s.execute("DELETE FROM leasehold_batches");
            s.execute("DELETE FROM leasehold_slot_runs");
            s.execute("DROP TABLE IF EXISTS lost_acct");
            s.execute("CREATE TABLE lost_acct (id INT PRIMARY KEY, bal INT NOT NULL)");
            s.execute("INSERT INTO lost_acct VALUES (1, 100)");
        }
        proxy = new AnswerDroppingProxy(host(), port());
        batches = new BatchClaims(direct());
        lossy = new BatchClaims(through(proxy.port()));
        slots = new SlotRuns(direct());
        lossySlots = new SlotRuns(through(proxy.port()));
    }

    @AfterEach
    void stopProxy() {
        proxy.close();
    }

    @Test
    void aFinishWhoseAnswerIsLostAfterItCommittedIsAnUnknownOutcomeNotALostClaim() throws Exception {
        BatchClaim claim = enqueuedAndClaimed("b");
        unknown(lost("UPDATE leasehold_batches", () -> lossy.finish(claim, "r")), "finishing batch 'b'");
        assertThat(batches.state("b")).get().extracting(BatchState::status).isEqualTo("done");
        assertThat(lossy.finish(claim, "r"))
                .as("the retry a retryable failure invites reports the claim lost")
                .isFalse();
    }

    @Test
    void aFailWhoseAnswerIsLostIsAnUnknownOutcome() throws Exception {
        BatchClaim claim = enqueuedAndClaimed("b");
        unknown(lost("UPDATE leasehold_batches", () -> lossy.fail(claim, "boom")), "failing batch 'b'");
        assertThat(batches.state("b")).get().satisfies(s -> {
            assertThat(s.status()).isEqualTo("pending");
            assertThat(s.error()).isEqualTo("boom");
        });
    }

    @Test
    void aRenewWhoseAnswerIsLostIsAnUnknownOutcome() throws Exception {
        BatchClaim claim = enqueuedAndClaimed("b");
        unknown(
                lost("UPDATE leasehold_batches", () -> lossy.renew(claim, Duration.ofHours(1))),
                "renewing the claim on batch 'b'");
        assertThat(batches.state("b").orElseThrow().leaseUntil()).isAfter(claim.leaseUntil());
    }

    @Test
    void anEnqueueWhoseAnswerIsLostIsAnUnknownOutcomeNotADuplicateOnRetry() throws Exception {
        unknown(lost("INSERT INTO leasehold_batches", () -> lossy.enqueue("b", "p")), "enqueueing batch 'b'");
        assertThat(batches.state("b")).get().extracting(BatchState::status).isEqualTo("pending");
        assertThatThrownBy(() -> lossy.enqueue("b", "p"))
                .as("the retry a retryable failure invites")
                .hasMessageContaining("already enqueued");
    }

    @Test
    void aClaimWhoseAnswerIsLostIsUnknownWhereItCommitsOnItsOwnAndRetryableWhereItIsATransaction() throws Exception {
        batches.enqueue("b", "p");
        Throwable next = lost("leasehold_batches", () -> lossy.claimNext("w", LEASE));
        claimedOrNot(next, "claiming a batch for 'w'", "b");
        batches.enqueue("c", "p");
        Throwable many = lost("leasehold_batches", () -> lossy.claimUpTo("w", LEASE, 10));
        claimedOrNot(many, "claiming up to 10 batches for 'w'", "c");
    }

    @Test
    void aFinishAllWhoseAnswerIsLostIsUnknownWhereItCommitsOnItsOwnAndRetryableWhereItIsATransaction()
            throws Exception {
        BatchClaim claim = enqueuedAndClaimed("b");
        Throwable thrown = lost("leasehold_batches", () -> lossy.finishAll(List.of(claim), "r"));
        if (oneStatementClaims()) {
            unknown(thrown, "finishing 1 batches");
            assertThat(batches.state("b")).get().extracting(BatchState::status).isEqualTo("done");
        } else {
            nothingKept(thrown, "finishing 1 batches");
            assertThat(batches.state("b")).get().extracting(BatchState::status).isEqualTo("processing");
        }
    }

    @Test
    void slotStatementsWhoseAnswersAreLostAreUnknownOutcomes() throws Exception {
        unknown(
                lost("INSERT INTO leasehold_slot_runs", () -> lossySlots.tryClaim("job", SLOT, "r", LEASE)),
                "claiming slot " + SLOT + " of 'job'");
        assertThat(slots.state("job", SLOT)).get().satisfies(s -> assertThat(s.runner())
                .isEqualTo("r"));
        SlotClaim claim = new SlotClaim("job", SLOT, "r", 1);
        unknown(
                lost("UPDATE leasehold_slot_runs", () -> lossySlots.renew(claim, LEASE)),
                "renewing slot " + SLOT + " of 'job'");
        unknown(
                lost("UPDATE leasehold_slot_runs", () -> lossySlots.complete(claim, "ok")),
                "completing slot " + SLOT + " of 'job'");
        assertThat(slots.state("job", SLOT)).get().satisfies(s -> {
            assertThat(s.status()).isEqualTo("done");
            assertThat(s.result()).isEqualTo("ok");
        });
    }

    @Test
    void aFencedUpdateWhoseAnswerIsLostIsUnknownWhereItsCommitTravelsWithItAndRetryableElse() throws Exception {
        FenceGate gate = new FenceGate(through(proxy.port()));
        gate.advance("acct", 1); // the gate saw token 1 pass: its next update takes the short path
        Throwable thrown = lost(
                "lost_acct", () -> gate.update("acct", 1, "UPDATE lost_acct SET bal = bal - ? WHERE id = ?", 10, 1));
        String operation = "fenced statement on 'acct' with token 1";
        if (updateInOneRoundTrip()) {
            unknown(thrown, operation);
            assertThat(balance()).isEqualTo(90);
        } else {
            nothingKept(thrown, operation);
            assertThat(balance()).isEqualTo(100);
        }
    }

    @Test
    void aWorkStatementWhoseAnswerIsLostInsideTheTransactionIsRetryableAndNothingIsKept() throws Exception {
        FenceGate gate = new FenceGate(through(proxy.port()));
        Throwable thrown = lost(
                "lost_acct",
                () -> gate.write("acct", 1, tx -> {
                    try (Statement s = tx.createStatement()) {
                        s.executeUpdate("UPDATE lost_acct SET bal = bal - 10 WHERE id = 1");
                    }
                }));
        nothingKept(thrown, "fenced write to 'acct' with token 1");
        assertThat(balance()).isEqualTo(100);
    }

    @Test
    void aReadWhoseAnswerIsLostIsRetryable() throws Exception {
        batches.enqueue("b", "p");
        nothingKept(lost("leasehold_batches", () -> lossy.state("b")), "reading batch 'b'");
    }

    private BatchClaim enqueuedAndClaimed(String id) {
        batches.enqueue(id, "p");
        return batches.claimNext("w", LEASE).orElseThrow();
    }

    /** Drops the answer to the request that holds {@code marker}; returns what {@code call} threw. */
    private Throwable lost(String marker, ThrowingCallable call) throws InterruptedException {
        proxy.dropAnswerTo(marker, requestsAfterText());
        Throwable thrown = catchThrowable(call);
        assertThat(proxy.droppedWithin(10))
                .as("the proxy dropped the answer to '%s' (threw %s)", marker, thrown)
                .isTrue();
        assertThat(thrown).as("what the call threw").isNotNull();
        return thrown;
    }

    private static void unknown(Throwable thrown, String operation) {
        assertThat(thrown).isInstanceOfSatisfying(CommitOutcomeUnknownException.class, e -> {
            assertThat(e.retryable()).isFalse();
            assertThat(e)
                    .hasMessageStartingWith(operation + ": the connection was lost after a statement that commits on"
                            + " its own (auto-commit) was sent, so the outcome is unknown")
                    .hasMessageContaining("do not simply retry (it may apply twice): read back what was kept");
        });
    }

    private static void nothingKept(Throwable thrown, String operation) {
        assertThat(thrown)
                .isInstanceOf(StoreException.class)
                .isNotInstanceOf(CommitOutcomeUnknownException.class)
                .hasMessageStartingWith(operation + " failed: the connection to the database was lost (retryable)");
        assertThat(((StoreException) thrown).retryable()).isTrue();
    }

    private void claimedOrNot(Throwable thrown, String operation, String batch) {
        if (oneStatementClaims()) {
            unknown(thrown, operation);
            assertThat(batches.state(batch))
                    .get()
                    .extracting(BatchState::status)
                    .isEqualTo("processing");
        } else {
            nothingKept(thrown, operation);
            assertThat(batches.state(batch))
                    .get()
                    .extracting(BatchState::status)
                    .isEqualTo("pending");
        }
    }

    private int balance() throws SQLException {
        try (Connection c = direct().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT bal FROM lost_acct WHERE id = 1")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
