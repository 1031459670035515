package dev.leasehold.store.claims;

import dev.leasehold.store.ClaimOutcome;
import dev.leasehold.store.CommitOutcomeUnknownException;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.StoreException;
import dev.leasehold.store.internal.Args;
import dev.leasehold.store.internal.BatchKey;
import dev.leasehold.store.internal.BatchRow;
import dev.leasehold.store.internal.Jdbc;
import dev.leasehold.store.internal.Retention;
import dev.leasehold.store.internal.SqlDialect;
import dev.leasehold.store.internal.StoreContext;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * A queue of batches that workers claim with a lease and a per-row fence: the fix for the duplicate batch.
 * Thread-safe: one instance may serve any number of threads (each call uses its own connection).
 *
 * <p>{@link #claimNext} takes a batch whose lease expired (longest expired first), else the oldest pending one, locks
 * it with {@code FOR UPDATE SKIP LOCKED} (claimers never wait on each other), and sets the owner, {@code lease_until}
 * from the <em>database</em> clock, status {@code processing}, {@code fence = fence + 1} and {@code attempts =
 * attempts + 1}. Each lookup is a range of one index, so a claim costs the same behind 100,000 pending and 100,000
 * finished batches as on an empty queue ({@code bench claim-backlog}). On PostgreSQL that is ONE statement. H2 locks
 * every row a {@code FOR UPDATE} query reads before applying its row limit, so there the candidates are read first
 * and locked one at a time with {@code SKIP LOCKED}, in one transaction; a candidate found taken is released at once,
 * so its owner's {@code finish} waits at most microseconds behind the claimer.
 *
 * <p>{@link #claimUpTo} claims up to 1,000 batches the same way in one call (one statement on PostgreSQL), and
 * {@link #finishAll} finishes up to 1,000 claims in one statement, each judged by its own fence: a batch costs a
 * fraction of a commit instead of two ({@code bench claims}).
 *
 * <p>{@link #finish}, {@link #fail} and {@link #renew} change the row only {@code WHERE id = ? AND fence = ?}: a
 * claimer whose lease expired and whose batch was claimed again updates 0 rows and gets {@code false}, and must then
 * write and send nothing more. No client clock is ever compared with a database timestamp.
 *
 * <p>Attempts: {@link #fail} puts the batch back to pending, or marks it {@code failed} when it was attempt
 * {@link StoreConfig#maxAttempts()} (default 5). A lease that ends counts as an attempt too: the next claim takes the
 * batch again, or marks it failed if that was its last attempt. A failed batch is never claimed again.
 *
 * <p>Every decision (claimed, empty, finished, lost, ...) is told to {@link StoreConfig#listener()} after the call
 * ended.
 *
 * <p>Failures. A {@link StoreException} whose {@link StoreException#retryable()} is true (a lock timeout, a
 * deadlock, a lost connection) kept nothing: the same call may be made again. A claim ({@link #claimNext},
 * {@link #claimUpTo}) never waits for a row another claimer holds, but on PostgreSQL SKIP LOCKED can still meet a
 * short wait on no claimer's row (a row's update chain, the moment its claimer commits; the lock that extends the
 * table): the store makes such a claim again by itself, as it does after a deadlock or a serialization failure, up to
 * 5 attempts in all, and only then throws the retryable lock timeout ({@code docs/store.md}, "What the store
 * retries"). IMPORTANT: in auto-commit mode each of
 * {@link #enqueue}, {@link #finish}, {@link #fail}, {@link #renew} (and on PostgreSQL
 * {@link #claimNext}, {@link #claimUpTo}, {@link #finishAll}, each one statement) commits on its own as the server
 * runs it; if the connection is lost after it was sent, the call throws {@link CommitOutcomeUnknownException}
 * (never retryable): it may have been committed. Do not simply retry (a {@code finish} that committed, made again,
 * returns {@code false}); read {@link #state} and carry on from what it says. A claim whose outcome is unknown and
 * that did commit is held until its lease ends, then claimed again as its next attempt. {@link #purgeFinished} may
 * throw it too, and may simply be called again: it deletes what is left.
 *
 * <p>A lease bounds how long a silent claimer blocks a batch; it does not stop a paused claimer from running on.
 * What stops its results from counting is the fence; what stops an outside system from receiving its work twice is
 * an idempotency key (the batch id).
 *
 * <p>Why one file of more than 300 lines: one public API for a batch's whole life (enqueue, claim, renew, finish, fail,
 * stats, purge), mostly Javadoc; the SQL of each step lives in the dialects.
 */
public final class BatchClaims {

    static final String PENDING = "pending";
    static final String PROCESSING = "processing";
    static final String DONE = "done";
    static final String FAILED = "failed";

    private final StoreContext context;
    private final StoreConfig config;

    /**
     * Batch claims on {@code ds} with {@link StoreConfig#defaults()}.
     *
     * @param ds where the schema lives (see {@link FencedSchema})
     */
    public BatchClaims(DataSource ds) {
        this(ds, StoreConfig.defaults());
    }

    /**
     * Batch claims on {@code ds}.
     *
     * @param ds     where the schema lives (see {@link FencedSchema})
     * @param config table prefix, attempts, retries and the rest
     */
    public BatchClaims(DataSource ds, StoreConfig config) {
        this.context = new StoreContext(ds, config);
        this.config = config;
    }

    /**
     * Adds a pending batch.
     *
     * @param batchId the batch's id: not blank, at most 200 characters
     * @param payload what the claimer will be handed
     * @throws IllegalArgumentException if the id is blank or too long, the payload null, or the id already enqueued
     */
    public void enqueue(String batchId, String payload) {
        Args.name(batchId, "batchId");
        Args.notNull(payload, "payload");
        context.jdbc().withConnection("enqueueing batch '" + batchId + "'", connection -> {
            SqlDialect sql = context.sql();
            try {
                return Jdbc.update(
                        connection,
                        "INSERT INTO " + sql.tables.batches()
                                + " (id, payload, status, fence, enqueued_at) VALUES (?, ?, '" + PENDING + "', 0, "
                                + sql.now() + ")",
                        batchId,
                        payload);
            } catch (SQLException e) {
                if (sql.uniqueViolation(e)) {
                    throw new IllegalArgumentException("batch '" + batchId + "' is already enqueued", e);
                }
                throw e;
            }
        });
    }

    /**
     * Claims a batch for {@code owner} for {@code lease}: one whose lease expired, else the oldest pending one; or
     * returns empty if none is claimable right now (all finished or failed, held by live leases, or locked by
     * concurrent claimers).
     *
     * @param owner who claims: not blank, at most 200 characters
     * @param lease how long the claim holds without a {@link #renew}: at least 1 ms, at most 7 days
     * @return the claim, or empty if no batch is claimable now
     */
    public Optional<BatchClaim> claimNext(String owner, Duration lease) {
        return context.events()
                .after(
                        () -> claimOne(owner, lease),
                        claim -> listener ->
                                listener.claims(claim.isPresent() ? ClaimOutcome.CLAIMED : ClaimOutcome.EMPTY, 1),
                        listener -> listener.claims(ClaimOutcome.ERROR, 1));
    }

    private Optional<BatchClaim> claimOne(String owner, Duration lease) {
        Args.name(owner, "owner");
        long leaseMillis = Args.leaseMillis(lease);
        String operation = "claiming a batch for '" + owner + "'";
        int maxAttempts = config.maxAttempts();
        Optional<BatchRow> claimed = context.jdbc()
                .withConnectionRetrying(
                        operation,
                        context::skipLockedWait,
                        connection -> context.sql().claimsInOneStatement()
                                ? context.sql().claimBatch(connection, owner, leaseMillis, maxAttempts)
                                : null);
        if (claimed == null) {
            claimed = context.jdbc().inTransactionRetrying(operation, context::skipLockedWait, tx -> context.sql()
                    .claimBatch(tx, owner, leaseMillis, maxAttempts));
        } // else one statement, committed on its own: one round trip
        return claimed.map(BatchClaims::claim);
    }

    /**
     * Claims up to {@code max} batches for {@code owner} for {@code lease}, in the order and by the rules of
     * {@link #claimNext} (batches whose lease expired first, longest expired first, then the oldest pending ones; each
     * row's fence and attempts raised; the lease from the database clock; locked rows skipped, never waited for). On
     * PostgreSQL that is ONE statement; on H2 one transaction of a few. Each returned claim is judged on its own by
     * {@link #finish}, {@link #finishAll}, {@link #fail} and {@link #renew}; all share one lease end.
     *
     * @param owner who claims (1 to 200 characters), as {@link #claimNext} takes it
     * @param lease how long each claim is held, from the database clock, as {@link #claimNext} takes it
     * @param max 1 to 1,000
     * @return the claims, expired ones first, then by enqueue order; fewer than {@code max} (or none) when fewer batches
     *         are claimable right now
     * @throws IllegalArgumentException if the owner is blank or too long, the lease not positive whole milliseconds
     *                                  of at most 7 days, or {@code max} out of range; nothing is claimed then
     */
    public List<BatchClaim> claimUpTo(String owner, Duration lease, int max) {
        return context.events()
                .after(
                        () -> claimMany(owner, lease, max),
                        claims -> listener -> listener.claims(
                                claims.isEmpty() ? ClaimOutcome.EMPTY : ClaimOutcome.CLAIMED,
                                Math.max(1, claims.size())),
                        listener -> listener.claims(ClaimOutcome.ERROR, 1));
    }

    private List<BatchClaim> claimMany(String owner, Duration lease, int max) {
        Args.name(owner, "owner");
        long leaseMillis = Args.leaseMillis(lease);
        ClaimLists.max(max);
        String operation = "claiming up to " + max + " batches for '" + owner + "'";
        int maxAttempts = config.maxAttempts();
        List<BatchRow> claimed = context.jdbc()
                .withConnectionRetrying(
                        operation,
                        context::skipLockedWait,
                        connection -> context.sql().claimsInOneStatement()
                                ? context.sql().claimBatches(connection, owner, leaseMillis, maxAttempts, max)
                                : null);
        if (claimed == null) {
            claimed = context.jdbc().inTransactionRetrying(operation, context::skipLockedWait, tx -> context.sql()
                    .claimBatches(tx, owner, leaseMillis, maxAttempts, max));
        } // else one statement, committed on its own: one round trip
        return claimed.stream().map(BatchClaims::claim).toList();
    }

    /**
     * Marks done with {@code result} every batch of {@code claims} whose claim is still current, each judged by its own
     * fence exactly as {@link #finish} judges one: a stale claim is refused and changes nothing, the others finish. All
     * in one statement on PostgreSQL (one JDBC batch in one transaction on H2): one commit for them all, and if the
     * database fails, none is finished. An empty list finishes nothing and touches no connection, so the result of an
     * empty {@link #claimUpTo} can be passed as it is.
     *
     * @param claims at most 1,000, each batch at most once
     * @param result stored with every batch that finishes, as {@link #finish} stores it
     * @return which claims finished and which were refused (send nothing more for those)
     * @throws IllegalArgumentException if {@code claims} or {@code result} is null, a claim is null, a batch appears
     *                                  twice, or there are more than 1,000; nothing is written then
     */
    public FinishOutcome finishAll(List<BatchClaim> claims, String result) {
        return context.events()
                .after(
                        () -> finishMany(claims, result),
                        outcome -> listener -> {
                            if (!outcome.finished().isEmpty()) {
                                listener.claims(
                                        ClaimOutcome.FINISHED,
                                        outcome.finished().size());
                            }
                            if (!outcome.refused().isEmpty()) {
                                listener.claims(
                                        ClaimOutcome.LOST_ON_FINISH,
                                        outcome.refused().size());
                            }
                        },
                        listener -> listener.claims(ClaimOutcome.ERROR, 1));
    }

    private FinishOutcome finishMany(List<BatchClaim> claims, String result) {
        List<BatchClaim> given = ClaimLists.claims(claims);
        Args.notNull(result, "result");
        if (given.isEmpty()) {
            return new FinishOutcome(List.of(), List.of());
        }
        String operation = "finishing " + given.size() + " batches";
        List<BatchKey> keys = given.stream()
                .map(claim -> new BatchKey(claim.batchId(), claim.fence()))
                .toList();
        Set<String> done = context.jdbc()
                .withConnection(
                        operation,
                        connection -> context.sql().claimsInOneStatement()
                                ? context.sql().finishBatches(connection, keys, result)
                                : null);
        if (done == null) {
            done = context.jdbc().inTransaction(operation, tx -> context.sql().finishBatches(tx, keys, result));
        }
        List<BatchClaim> finished = new ArrayList<>();
        List<BatchClaim> refused = new ArrayList<>();
        for (BatchClaim claim : given) {
            (done.contains(claim.batchId()) ? finished : refused).add(claim);
        }
        return new FinishOutcome(finished, refused);
    }

    /**
     * Extends the lease from now (database clock), if {@code claim} is still the batch's current claim.
     *
     * @param claim the claim {@link #claimNext} returned
     * @param lease the new lease, from now: at least 1 ms, at most 7 days
     * @return false if the claim was lost (the batch was claimed again, or finished)
     */
    public boolean renew(BatchClaim claim, Duration lease) {
        return context.events()
                .after(
                        () -> renewOne(claim, lease),
                        renewed -> listener -> {
                            if (!renewed) {
                                listener.claims(ClaimOutcome.LOST_ON_RENEW, 1);
                            }
                        },
                        listener -> listener.claims(ClaimOutcome.ERROR, 1));
    }

    private boolean renewOne(BatchClaim claim, Duration lease) {
        Args.notNull(claim, "claim");
        long leaseMillis = Args.leaseMillis(lease);
        return context.jdbc().withConnection("renewing the claim on batch '" + claim.batchId() + "'", connection -> {
            SqlDialect sql = context.sql();
            return Jdbc.oneRow(
                    Jdbc.update(
                            connection,
                            "UPDATE " + sql.tables.batches() + " SET lease_until = " + sql.nowPlusMillis()
                                    + " WHERE id = ? AND fence = ? AND status = '" + PROCESSING + "'",
                            leaseMillis,
                            claim.batchId(),
                            claim.fence()),
                    "renew");
        });
    }

    /**
     * Marks the batch done with {@code result}, if {@code claim} is still its current claim.
     *
     * @param claim  the claim {@link #claimNext} returned
     * @param result what to record as the batch's result
     * @return false if the claim was lost: 0 rows changed, nothing written. Stop and send nothing more.
     */
    public boolean finish(BatchClaim claim, String result) {
        return context.events()
                .after(
                        () -> finishOne(claim, result),
                        done -> listener ->
                                listener.claims(done ? ClaimOutcome.FINISHED : ClaimOutcome.LOST_ON_FINISH, 1),
                        listener -> listener.claims(ClaimOutcome.ERROR, 1));
    }

    private boolean finishOne(BatchClaim claim, String result) {
        Args.notNull(claim, "claim");
        Args.notNull(result, "result");
        return context.jdbc().withConnection("finishing batch '" + claim.batchId() + "'", connection -> {
            SqlDialect sql = context.sql();
            return Jdbc.oneRow(
                    Jdbc.update(
                            connection,
                            "UPDATE " + sql.tables.batches() + " SET status = '" + DONE
                                    + "', result = ?, lease_until = NULL, finished_at = " + sql.now()
                                    + " WHERE id = ? AND fence = ? AND status = '" + PROCESSING + "'",
                            result,
                            claim.batchId(),
                            claim.fence()),
                    "finish");
        });
    }

    /**
     * Records that this attempt failed with {@code error}, if {@code claim} is still the batch's current claim: the
     * batch goes back to pending (the next claim is its next attempt), or to {@code failed} if this was attempt
     * {@link StoreConfig#maxAttempts()}. See {@link #state} for which.
     *
     * @param claim the claim {@link #claimNext} returned
     * @param error what went wrong, recorded with the batch
     * @return false if the claim was lost (claimed again, finished, or already failed): 0 rows changed
     */
    public boolean fail(BatchClaim claim, String error) {
        return context.events()
                .after(
                        () -> failOne(claim, error),
                        recorded -> listener -> listener.claims(
                                recorded ? ClaimOutcome.ATTEMPT_FAILED : ClaimOutcome.LOST_ON_FINISH, 1),
                        listener -> listener.claims(ClaimOutcome.ERROR, 1));
    }

    private boolean failOne(BatchClaim claim, String error) {
        Args.notNull(claim, "claim");
        Args.notNull(error, "error");
        long max = config.maxAttempts();
        return context.jdbc().withConnection("failing batch '" + claim.batchId() + "'", connection -> {
            SqlDialect sql = context.sql();
            return Jdbc.oneRow(
                    Jdbc.update(
                            connection,
                            "UPDATE " + sql.tables.batches() + " SET status = CASE WHEN"
                                    + " attempts >= ? THEN '" + FAILED + "' ELSE '" + PENDING
                                    + "' END, error = ?, lease_until = NULL,"
                                    + " finished_at = CASE WHEN attempts >= ? THEN " + sql.now() + " ELSE NULL END"
                                    + " WHERE id = ? AND fence = ? AND status = '" + PROCESSING + "'",
                            max,
                            error,
                            max,
                            claim.batchId(),
                            claim.fence()),
                    "fail");
        });
    }

    /**
     * Counts the batches by state, in one statement. It reads every row of the table: keep the table small with
     * {@link #purgeFinished}, and call this for monitoring, not per batch.
     *
     * @return the counts, and the age of the oldest pending batch
     */
    public BatchStats stats() {
        return context.jdbc().withConnection("counting batches", connection -> {
            SqlDialect sql = context.sql();
            String now = sql.now();
            return Jdbc.query(
                            connection,
                            "SELECT"
                                    + " COUNT(CASE WHEN status = '" + PENDING + "' THEN 1 END) AS pending,"
                                    + " COUNT(CASE WHEN status = '" + PROCESSING + "' AND lease_until >= " + now
                                    + " THEN 1 END) AS processing,"
                                    + " COUNT(CASE WHEN status = '" + PROCESSING + "' AND lease_until < " + now
                                    + " THEN 1 END) AS expired,"
                                    + " COUNT(CASE WHEN status = '" + DONE + "' THEN 1 END) AS done,"
                                    + " COUNT(CASE WHEN status = '" + FAILED + "' THEN 1 END) AS failed,"
                                    + " MIN(CASE WHEN status = '" + PENDING + "' THEN enqueued_at END) AS oldest,"
                                    + " " + now + " AS db_now FROM " + sql.tables.batches(),
                            row -> {
                                Instant oldest = Jdbc.instant(row, "oldest");
                                Instant dbNow = Jdbc.instant(row, "db_now");
                                Optional<Duration> age = oldest == null
                                        ? Optional.empty()
                                        : Optional.of(
                                                oldest.isAfter(dbNow)
                                                        ? Duration.ZERO
                                                        : Duration.between(oldest, dbNow));
                                return new BatchStats(
                                        row.getLong("pending"),
                                        row.getLong("processing"),
                                        row.getLong("expired"),
                                        row.getLong("done"),
                                        row.getLong("failed"),
                                        age);
                            })
                    .get(0);
        });
    }

    /**
     * Deletes done and failed batches that finished more than {@code olderThan} ago (database clock), in chunks of
     * {@link StoreConfig#purgeChunk()} rows, each its own short transaction. Pending and processing batches are never
     * touched. A purged batch id can be enqueued again.
     *
     * @param olderThan how long ago a batch must have finished to go: zero or more, at most 36,500 days
     * @return how many batches were deleted
     */
    public long purgeFinished(Duration olderThan) {
        Args.olderThan(olderThan);
        String operation = "purging batches finished more than " + olderThan + " ago";
        Instant cutoff = Retention.cutoff(context, operation, olderThan);
        String table = context.sql().tables.batches();
        int chunk = config.purgeChunk();
        long deleted = 0;
        for (String status : new String[] {DONE, FAILED}) {
            deleted += Retention.inChunks(
                    context,
                    operation,
                    context.sql()
                            .chunkDelete(
                                    table, "id", "status = '" + status + "' AND finished_at < ?", "finished_at", chunk),
                    chunk,
                    cutoff);
        }
        return deleted;
    }

    /**
     * Reads one batch.
     *
     * @param batchId the batch's id
     * @return the batch as stored, or empty if it was never enqueued (or was purged)
     */
    public Optional<BatchState> state(String batchId) {
        Args.name(batchId, "batchId");
        return context
                .jdbc()
                .withConnection(
                        "reading batch '" + batchId + "'",
                        connection -> Jdbc.query(
                                connection,
                                "SELECT id, status, owner, fence, lease_until, result, attempts, error FROM "
                                        + context.sql().tables.batches() + " WHERE id = ?",
                                row -> new BatchState(
                                        row.getString("id"),
                                        row.getString("status"),
                                        row.getString("owner"),
                                        row.getLong("fence"),
                                        Jdbc.instant(row, "lease_until"),
                                        row.getString("result"),
                                        row.getInt("attempts"),
                                        row.getString("error")),
                                batchId))
                .stream()
                .findFirst();
    }

    /** The public claim of a claimed row. */
    private static BatchClaim claim(BatchRow row) {
        return new BatchClaim(row.batchId(), row.owner(), row.fence(), row.payload(), row.attempt(), row.leaseUntil());
    }
}
