package dev.leasehold.store.internal.postgres;

import dev.leasehold.store.internal.Tables;
import dev.leasehold.store.internal.TxDialect;
import java.sql.Connection;
import java.util.Optional;

/**
 * PostgreSQL's transaction framing: {@code SET TRANSACTION ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout =
 * n}, sent in the same round trip as the transaction's first statement (both end with the transaction: nothing to
 * restore); a statement on its own (auto-commit) travels as {@code BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL
 * lock_timeout = n; statement; COMMIT}. The exclusive fence check is one upsert; the shared one a {@code FOR SHARE} read
 * of the mark. Immutable and thread-safe.
 */
final class PostgresTx extends TxDialect {

    private final String prologue;
    private final String begin;

    PostgresTx(long lockTimeoutMillis) {
        super(lockTimeoutMillis);
        this.prologue =
                "SET TRANSACTION ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = " + lockTimeoutMillis + "; ";
        this.begin = "BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = " + lockTimeoutMillis + "; ";
    }

    @Override
    public String statementBegin() {
        return begin;
    }

    @Override
    public String statementEnd() {
        return "; COMMIT";
    }

    @Override
    public String prologue() {
        return prologue;
    }

    @Override
    public boolean multiStatement() {
        return true;
    }

    @Override
    public Restore enter(Connection connection) {
        return NOTHING;
    }

    /** FOR SHARE, not FOR KEY SHARE: an UPDATE of the token (not a key column) does not wait for a key-share lock. */
    @Override
    public Optional<String> fenceAssert(Tables tables) {
        return Optional.of("WITH passed AS (SELECT 1 FROM " + tables.fence() + " WHERE resource = ? AND token = ?"
                + " FOR SHARE) SELECT 1 / COUNT(*) FROM passed");
    }

    @Override
    public Optional<String> fenceUpsert(Tables tables) {
        return Optional.of("INSERT INTO " + tables.fence() + " AS f (resource, token, updated_at) VALUES (?, ?, now())"
                + " ON CONFLICT (resource) DO UPDATE SET token = EXCLUDED.token, updated_at = EXCLUDED.updated_at"
                + " WHERE f.token <= EXCLUDED.token");
    }

    /** DDL is transactional here: it does not commit by itself. */
    @Override
    public boolean ddlCommits() {
        return false;
    }

    /** The transaction's id: a different one before the commit means the work's SQL ended the gate's. */
    @Override
    public String markTransaction() {
        return "SELECT txid_current()";
    }

    @Override
    public String verifyTransaction() {
        return markTransaction();
    }
}
