package dev.leasehold.store.claims;

import dev.leasehold.store.testing.MariaDb;
import dev.leasehold.store.testing.WithMariaDb;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The claim plans on a real MariaDB server ({@link MariaDb}: skipped unless LEASEHOLD_TEST_MARIADB_URL is set): no
 * full table scan ({@code type=ALL}), no full index scan ({@code type=index}), no {@code filesort}.
 */
@WithMariaDb
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbClaimPlanTest extends ClaimPlanContract {

    private DataSource dataSource;

    @BeforeAll
    void createDatabase() {
        dataSource = MariaDb.freshDatabase("claim_plan");
    }

    @Override
    protected DataSource dataSource() {
        return dataSource;
    }

    @Override
    protected void insertRows(Statement s, String idPrefix, String status, int n) throws SQLException {
        s.execute("INSERT INTO leasehold_batches (id, payload, status, fence, attempts, enqueued_at, lease_until,"
                + " finished_at) SELECT CONCAT('" + idPrefix + "', seq), 'p', '" + status + "', 1, 1,"
                + " UTC_TIMESTAMP(6), " + ("processing".equals(status) ? "UTC_TIMESTAMP(6) + INTERVAL 1 HOUR" : "NULL")
                + ", " + ("done".equals(status) ? "UTC_TIMESTAMP(6)" : "NULL") + " FROM seq_1_to_" + n);
    }

    @Override
    protected void analyze(Statement s) throws SQLException {
        s.execute("ANALYZE TABLE leasehold_batches");
    }

    @Override
    protected String explain(Connection c, String sql, List<Object> params) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("EXPLAIN " + sql)) {
            for (int i = 0; i < params.size(); i++) {
                p.setObject(i + 1, params.get(i));
            }
            StringBuilder plan = new StringBuilder();
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    plan.append("table=")
                            .append(rs.getString("table"))
                            .append(" type=")
                            .append(rs.getString("type"))
                            .append(" key=")
                            .append(rs.getString("key"))
                            .append(" extra=")
                            .append(rs.getString("Extra"))
                            .append('\n');
                }
            }
            return plan.toString();
        }
    }

    @Override
    protected List<String> forbidden() {
        return List.of("type=ALL", "type=index ", "filesort");
    }
}
