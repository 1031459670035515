package dev.leasehold.store;

import java.sql.SQLException;

/**
 * The database may or may not have committed what the call sent, and the store cannot tell: the commit failed (a
 * connection lost during {@code COMMIT}, a deferred constraint), or the connection was lost after a statement that
 * commits on its own was sent (auto-commit: {@code BatchClaims.finish}, {@code fail}, {@code renew},
 * {@code enqueue}, PostgreSQL's one-statement {@code claimNext}, {@code claimUpTo} and {@code finishAll},
 * {@code SlotRuns.tryClaim}, {@code renew}, {@code complete}, {@link FenceGate#update}'s one round trip, the purges):
 * the server may have run and committed it before its answer was lost.
 *
 * <p>Not {@link #retryable()}: making the same call again may apply it twice, or misreport it (a finish that did
 * commit, made again, reports the claim as lost; an enqueue, a duplicate). Find out what was kept first: read it
 * back ({@code BatchClaims.state}, {@code SlotRuns.state}, {@code Outbox.state}, {@link FenceGate#highestToken}), or
 * make the work idempotent; then carry on from what you read. A fence mark only moves up, so a lost
 * {@code advance} can simply be repeated.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public class CommitOutcomeUnknownException extends StoreException {

    private static final long serialVersionUID = 1L;

    /** What the message tells the caller to do. */
    static final String WHAT_TO_DO = "do not simply retry (it may apply twice): read back what was kept (the"
            + " batch's, slot's or intent's state, or the fence's mark), then carry on from that";

    /**
     * The commit failed.
     *
     * @param operation what the store was doing, e.g. {@code "advancing the fence of 'billing'"}
     * @param cause     the failure of the commit
     */
    public CommitOutcomeUnknownException(String operation, SQLException cause) {
        this(operation, "the commit failed", cause);
    }

    /**
     * Something other than the commit itself failed in a way that leaves the commit unknown.
     *
     * @param operation what the store was doing, e.g. {@code "finishing batch 'b-1'"}
     * @param what      what failed, e.g. {@code "the connection was lost after a statement that commits on its own
     *                  (auto-commit) was sent"}
     * @param cause     the database's failure
     */
    public CommitOutcomeUnknownException(String operation, String what, SQLException cause) {
        super(
                operation + ": " + what + ", so the outcome is unknown (it may or may not have been committed); "
                        + WHAT_TO_DO + ": " + cause.getMessage() + " (SQLState " + cause.getSQLState() + ")",
                cause,
                false);
    }
}
