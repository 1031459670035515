package dev.leasehold.store.claims;

import dev.leasehold.store.testing.SharedPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

/** The claim plans on PostgreSQL 17: index scans, no {@code Seq Scan} and no {@code Sort} on the batches table. */
class PostgresClaimPlanTest extends ClaimPlanContract {

    @Override
    protected DataSource dataSource() {
        return SharedPostgres.freshDatabase("claim_plan");
    }

    @Override
    protected void insertRows(Statement s, String idPrefix, String status, int n) throws SQLException {
        s.execute("INSERT INTO leasehold_batches (id, payload, status, fence, attempts, enqueued_at, lease_until,"
                + " finished_at) SELECT '" + idPrefix + "' || g, 'p', '" + status + "', 1, 1, now(), "
                + ("processing".equals(status) ? "now() + INTERVAL '1 hour'" : "NULL") + ", "
                + ("done".equals(status) ? "now()" : "NULL") + " FROM generate_series(1, " + n + ") g");
    }

    @Override
    protected void analyze(Statement s) throws SQLException {
        s.execute("ANALYZE leasehold_batches");
    }

    @Override
    protected String explain(Connection c, String sql, List<Object> params) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("EXPLAIN " + sql)) {
            for (int i = 0; i < params.size(); i++) {
                p.setObject(i + 1, params.get(i));
            }
            return lines(p);
        }
    }

    @Override
    protected List<String> forbidden() {
        return List.of("Seq Scan on leasehold_batches", "Sort");
    }
}
