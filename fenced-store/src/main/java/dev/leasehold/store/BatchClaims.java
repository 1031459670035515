package dev.leasehold.store;

import dev.leasehold.store.internal.Args;
import dev.leasehold.store.internal.Jdbc;
import dev.leasehold.store.internal.SqlDialect;
import dev.leasehold.store.internal.StoreContext;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * A queue of batches that workers claim with a lease and a per-row fence: the fix for the duplicate batch.
 *
 * <p>{@link #claimNext} picks the oldest batch that is pending, or processing with an expired lease, locks it with
 * {@code FOR UPDATE SKIP LOCKED} (claimers never wait on each other), and sets the owner, {@code lease_until} from
 * the <em>database</em> clock, status {@code processing} and {@code fence = fence + 1}. On PostgreSQL that is ONE
 * statement. H2 locks every row a {@code FOR UPDATE} query reads before applying its row limit, so there the
 * candidates are read first and locked one at a time with {@code SKIP LOCKED}, in one transaction; a candidate
 * found taken is released at once, so its owner's {@code finish} waits at most microseconds behind the claimer.
 *
 * <p>{@link #finish} and {@link #renew} change the row only {@code WHERE id = ? AND fence = ?}: a claimer whose
 * lease expired and whose batch was claimed again updates 0 rows and gets {@code false}, and must then write and
 * send nothing more. No client clock is ever compared with a database timestamp.
 *
 * <p>A lease bounds how long a silent claimer blocks a batch; it does not stop a paused claimer from running on.
 * What stops its results from counting is the fence; what stops an outside system from receiving its work twice is
 * an idempotency key (the batch id).
 */
public final class BatchClaims {

    static final String PENDING = "pending";
    static final String PROCESSING = "processing";
    static final String DONE = "done";

    private final StoreContext context;

    public BatchClaims(DataSource ds) {
        this(ds, StoreConfig.defaults());
    }

    public BatchClaims(DataSource ds, StoreConfig config) {
        this.context = new StoreContext(ds, config);
    }

    /**
     * Adds a pending batch.
     *
     * @throws IllegalArgumentException if the id is blank or too long, the payload null, or the id already enqueued
     */
    public void enqueue(String batchId, String payload) {
        Args.name(batchId, "batchId");
        Args.notNull(payload, "payload");
        context.jdbc().withConnection("enqueueing batch '" + batchId + "'", connection -> {
            SqlDialect sql = context.sql();
            try {
                return Jdbc.update(connection, "INSERT INTO " + sql.tables.batches()
                        + " (id, payload, status, fence, enqueued_at) VALUES (?, ?, '" + PENDING + "', 0, "
                        + sql.now() + ")", batchId, payload);
            } catch (SQLException e) {
                if (sql.lostInsertRace(e) || "23505".equals(e.getSQLState())) {
                    throw new IllegalArgumentException("batch '" + batchId + "' is already enqueued", e);
                }
                throw e;
            }
        });
    }

    /**
     * Claims the oldest claimable batch for {@code owner} for {@code lease}, or returns empty if none is claimable
     * right now (all done, held by live leases, or locked by concurrent claimers).
     */
    public Optional<BatchClaim> claimNext(String owner, Duration lease) {
        Args.name(owner, "owner");
        long leaseMillis = Args.leaseMillis(lease);
        String operation = "claiming a batch for '" + owner + "'";
        Optional<BatchClaim> claimed = context.jdbc().withConnection(operation, connection ->
                context.sql().claimsInOneStatement() ? context.sql().claimBatch(connection, owner, leaseMillis)
                        : null);
        if (claimed != null) {
            return claimed; // one statement, committed on its own: one round trip
        }
        return context.jdbc().inTransaction(operation, tx -> context.sql().claimBatch(tx, owner, leaseMillis));
    }

    /**
     * Extends the lease from now (database clock), if {@code claim} is still the batch's current claim.
     *
     * @return false if the claim was lost (the batch was claimed again, or finished)
     */
    public boolean renew(BatchClaim claim, Duration lease) {
        Args.notNull(claim, "claim");
        long leaseMillis = Args.leaseMillis(lease);
        return context.jdbc().withConnection("renewing the claim on batch '" + claim.batchId() + "'", connection -> {
            SqlDialect sql = context.sql();
            return Jdbc.oneRow(Jdbc.update(connection, "UPDATE " + sql.tables.batches() + " SET lease_until = "
                    + sql.nowPlusMillis() + " WHERE id = ? AND fence = ? AND status = '" + PROCESSING + "'",
                    leaseMillis, claim.batchId(), claim.fence()), "renew");
        });
    }

    /**
     * Marks the batch done with {@code result}, if {@code claim} is still its current claim.
     *
     * @return false if the claim was lost: 0 rows changed, nothing written. Stop and send nothing more.
     */
    public boolean finish(BatchClaim claim, String result) {
        Args.notNull(claim, "claim");
        Args.notNull(result, "result");
        return context.jdbc().withConnection("finishing batch '" + claim.batchId() + "'", connection -> {
            SqlDialect sql = context.sql();
            return Jdbc.oneRow(Jdbc.update(connection, "UPDATE " + sql.tables.batches() + " SET status = '" + DONE
                    + "', result = ?, lease_until = NULL, finished_at = " + sql.now()
                    + " WHERE id = ? AND fence = ? AND status = '" + PROCESSING + "'", result, claim.batchId(),
                    claim.fence()), "finish");
        });
    }

    /** The batch as stored, or empty if it was never enqueued. */
    public Optional<BatchState> state(String batchId) {
        Args.name(batchId, "batchId");
        return context.jdbc().withConnection("reading batch '" + batchId + "'", connection -> Jdbc.query(connection,
                "SELECT id, status, owner, fence, lease_until, result FROM " + context.sql().tables.batches()
                        + " WHERE id = ?",
                row -> new BatchState(row.getString("id"), row.getString("status"), row.getString("owner"),
                        row.getLong("fence"), Jdbc.instant(row, "lease_until"), row.getString("result")),
                batchId)).stream().findFirst();
    }
}
