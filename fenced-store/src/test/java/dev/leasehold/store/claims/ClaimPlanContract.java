package dev.leasehold.store.claims;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.testing.RecordingDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 10: {@code claimNext} slowed down linearly with the backlog, because {@code status = 'pending' OR (status =
 * 'processing' AND lease_until < now())} ordered by {@code seq} could use no index (a sort of every unfinished row on
 * PostgreSQL, a table scan on H2). Here every statement a claim sends is recorded and handed to the database's own
 * EXPLAIN, with a backlog of pending and finished rows: none may scan or sort the batches table. (How fast a claim
 * is lives in {@code bench claim-backlog}; tests never assert timing.)
 */
@Timeout(120)
abstract class ClaimPlanContract {

    /** Rows of each kind in the backlog: enough that a planner prefers an index wherever one fits. */
    static final int BACKLOG = 5_000;

    protected abstract DataSource dataSource();

    /**
     * Inserts {@code n} rows of {@code status} into leasehold_batches in one statement (dialect-specific SQL);
     * processing rows with a lease an hour long, done rows finished now.
     */
    protected abstract void insertRows(Statement s, String idPrefix, String status, int n) throws SQLException;

    /** Refreshes the planner's statistics, as autovacuum would after a bulk load. */
    protected abstract void analyze(Statement s) throws SQLException;

    /** The database's plan for {@code sql} with {@code params}, as text. */
    protected abstract String explain(Connection c, String sql, List<Object> params) throws SQLException;

    /** Plan fragments that mean "reads or sorts the whole table"; the first one means "reads" (a scan). */
    protected abstract List<String> forbidden();

    private DataSource ds;

    @BeforeEach
    void backlog() throws SQLException {
        ds = dataSource();
        FencedSchema.install(ds);
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("DELETE FROM leasehold_batches");
            insertRows(s, "done-", "done", BACKLOG); // oldest first: a scan in seq order meets them first
            insertRows(s, "pending-", "pending", BACKLOG);
            insertRows(s, "live-", "processing", BACKLOG / 50); // claimed, leases running (see insertRows)
            analyze(s);
        }
    }

    @Test
    void withABacklogOfPendingAndFinishedRowsNoClaimStatementScansOrSortsTheBatchesTable() throws SQLException {
        RecordingDataSource recording = new RecordingDataSource(ds);
        BatchClaims claims = new BatchClaims(recording);

        BatchClaim first = claims.claimNext("w", Duration.ofMinutes(5)).orElseThrow();
        assertThat(first.batchId()).isEqualTo("pending-1");

        noStatementScansOrSorts(recording);
    }

    /** Issue 16: claimUpTo's statements read index ranges too, behind the same backlog. */
    @Test
    void withABacklogOfPendingAndFinishedRowsNoStatementOfClaimUpToScansOrSortsTheBatchesTable() throws SQLException {
        RecordingDataSource recording = new RecordingDataSource(ds);
        BatchClaims claims = new BatchClaims(recording);

        List<BatchClaim> claimed = claims.claimUpTo("w", Duration.ofMinutes(5), 50);
        assertThat(claimed).hasSize(50);
        assertThat(claimed.get(0).batchId()).isEqualTo("pending-1");

        noStatementScansOrSorts(recording);
    }

    /**
     * finishAll's statements find their rows by primary key too. Its only sort is of the claims it was given (it locks
     * them in id order, so that two finishes never deadlock), so here only a scan of the table is forbidden.
     */
    @Test
    void withABacklogOfPendingAndFinishedRowsNoStatementOfFinishAllScansTheBatchesTable() throws SQLException {
        RecordingDataSource recording = new RecordingDataSource(ds);
        BatchClaims claims = new BatchClaims(recording);
        List<BatchClaim> claimed = claims.claimUpTo("w", Duration.ofMinutes(5), 50);
        recording.clear();

        assertThat(claims.finishAll(claimed, "ok").allFinished()).isTrue();

        noStatementDoes(recording, forbidden().subList(0, 1));
    }

    /** Hands every recorded statement on the batches table to EXPLAIN; none may scan or sort the table. */
    private void noStatementScansOrSorts(RecordingDataSource recording) throws SQLException {
        noStatementDoes(recording, forbidden());
    }

    /** Hands every recorded statement on the batches table to EXPLAIN; no plan may contain any of {@code fragments}. */
    private void noStatementDoes(RecordingDataSource recording, List<String> fragments) throws SQLException {
        List<RecordingDataSource.Recorded> onBatches = recording.recorded().stream()
                .filter(r -> r.sql().toLowerCase(Locale.ROOT).contains("leasehold_batches"))
                .toList();
        assertThat(onBatches).as("the claim's statements").isNotEmpty();
        try (Connection c = ds.getConnection()) {
            for (RecordingDataSource.Recorded statement : onBatches) {
                String plan = explain(c, batchesStatement(statement.sql()), statement.paramList());
                for (String fragment : fragments) {
                    assertThat(plan).as("plan of %s", statement.sql()).doesNotContain(fragment);
                }
            }
        }
    }

    /**
     * The statement on the batches table out of what was sent: on PostgreSQL the store sends its transaction settings
     * (and, in auto-commit mode, BEGIN and COMMIT) in the same round trip, as statements of their own before and
     * after it; they carry no parameters.
     */
    static String batchesStatement(String sent) {
        String statement = sent.replaceFirst("^(\\s*(BEGIN|SET)\\b[^;']*;)+", "")
                .replaceFirst(";\\s*COMMIT\\s*$", "")
                .trim();
        assertThat(statement)
                .as("what was sent: %s", sent)
                .doesNotStartWith("BEGIN")
                .doesNotStartWith("SET")
                .doesNotEndWith("COMMIT");
        return statement;
    }

    static String lines(PreparedStatement p) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }
}
