package dev.leasehold.store.internal.postgres;

import dev.leasehold.store.internal.Tables;
import dev.leasehold.store.internal.TxDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * PostgreSQL's transaction framing: {@code SET TRANSACTION ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout =
 * n; SET LOCAL idle_in_transaction_session_timeout = m}, sent in the same round trip as the transaction's first
 * statement (all end with the transaction: nothing to restore, and nothing that stays on a server connection a
 * transaction-mode PgBouncer hands to someone else); a statement on its own (auto-commit) travels as {@code BEGIN
 * ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = n; SET LOCAL idle_in_transaction_session_timeout = m;
 * statement; COMMIT}. The idle bound is what ends the transaction of a process frozen inside it (the server terminates
 * the session, rolling back and releasing its locks); in the auto-commit form the block is one round trip, but a
 * failed statement leaves it open until the store's ROLLBACK, which a pause can delay too. Without an idle bound
 * ({@code m = 0}: {@code StoreConfig.idleInTransactionTimeout} zero) the SET is left out and the server's own setting
 * applies. The exclusive fence check is one upsert; the shared one a {@code FOR SHARE} read
 * of the mark. Immutable and thread-safe.
 */
final class PostgresTx extends TxDialect {

    private final String prologue;
    private final String begin;

    PostgresTx(long lockTimeoutMillis, long idleMillis) {
        super(lockTimeoutMillis);
        String settings = "SET LOCAL lock_timeout = " + lockTimeoutMillis + "; "
                + (idleMillis > 0 ? "SET LOCAL idle_in_transaction_session_timeout = " + idleMillis + "; " : "");
        this.prologue = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED; " + settings;
        this.begin = "BEGIN ISOLATION LEVEL READ COMMITTED; " + settings;
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

    /**
     * {@code SHOW lock_timeout} and {@code SET LOCAL lock_timeout = n} in one round trip; the restore sets the value
     * read back, transaction-local ({@code set_config(..., true)}), so a caller's own {@code SET LOCAL} is kept and
     * the session's value returns at the end of the transaction as before. Nothing stays on a server connection.
     */
    @Override
    public Restore lockTimeoutInCallersTransaction(Connection tx) throws SQLException {
        String lent;
        try (Statement statement = tx.createStatement()) {
            statement.execute("SHOW lock_timeout; SET LOCAL lock_timeout = " + lockTimeoutMillis());
            try (ResultSet row = statement.getResultSet()) {
                row.next();
                lent = row.getString(1);
            }
        }
        return () -> {
            try (PreparedStatement back = tx.prepareStatement("SELECT set_config('lock_timeout', ?, true)")) {
                back.setString(1, lent);
                back.executeQuery().close();
            }
        };
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

    /**
     * Functions and triggers cannot end the transaction here: inside a transaction block (which JDBC with auto-commit
     * off always is) a COMMIT or ROLLBACK from PL/pgSQL fails with "invalid transaction termination" (2D000), and a
     * function may not run one at all. So plain DML keeps the transaction, and a work of plain DML costs no mark and
     * no verify: three round trips (the framing with the check, the work, the COMMIT) against a plain transaction's
     * two.
     */
    @Override
    public boolean dmlKeepsTransaction() {
        return true;
    }

    /** Fails with 25P02 ("current transaction is aborted") after a failed statement the work did not roll back. */
    @Override
    public Optional<String> abortedProbe() {
        return Optional.of("SELECT 1");
    }
}
