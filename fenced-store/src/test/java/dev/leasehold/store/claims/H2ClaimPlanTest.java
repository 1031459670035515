package dev.leasehold.store.claims;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** The claim plans on H2 2.x: index lookups in index order, never {@code tableScan}. */
class H2ClaimPlanTest extends ClaimPlanContract {

    @Override
    protected DataSource dataSource() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:claim-plan;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        return h2;
    }

    @Override
    protected void insertRows(Statement s, String idPrefix, String status, int n) throws SQLException {
        s.execute("INSERT INTO leasehold_batches (id, payload, status, fence, attempts, enqueued_at, lease_until,"
                + " finished_at) SELECT '" + idPrefix + "' || X, 'p', '" + status + "', 1, 1, CURRENT_TIMESTAMP, "
                + ("processing".equals(status) ? "DATEADD(HOUR, 1, CURRENT_TIMESTAMP)" : "NULL") + ", "
                + ("done".equals(status) ? "CURRENT_TIMESTAMP" : "NULL") + " FROM SYSTEM_RANGE(1, " + n + ")");
    }

    @Override
    protected void analyze(Statement s) throws SQLException {
        s.execute("ANALYZE");
    }

    @Override
    protected String explain(Connection c, String sql, List<Object> params) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("EXPLAIN " + sql)) {
            for (int i = 0; i < params.size(); i++) {
                p.setObject(i + 1, params.get(i));
            }
            String plan = lines(p);
            if (plan.contains("ORDER BY") && !plan.contains("index sorted")) {
                return plan + "\n(sorts: ORDER BY without /* index sorted */)";
            }
            return plan;
        }
    }

    @Override
    protected List<String> forbidden() {
        return List.of("tableScan", "(sorts:");
    }
}
