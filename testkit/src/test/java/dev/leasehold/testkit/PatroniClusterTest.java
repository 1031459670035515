package dev.leasehold.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The asynchronous loss, on purpose: with the primary's walsender stopped, a commit is acknowledged, the primary is
 * killed, Patroni promotes the standby, and the acknowledged row is not there. One cluster for the class (a Patroni
 * bootstrap costs about 4 s).
 */
@WithPatroni
class PatroniClusterTest {

    private static PatroniCluster cluster;

    @BeforeAll
    static void start(PatroniCluster shared) {
        cluster = shared; // the class's one cluster (WithPatroni), stopped after the class
    }

    @Test
    void aCommitAcknowledgedWhileReplicationIsPausedIsLostWhenTheStandbyIsPromoted() throws SQLException {
        DataSource ds = cluster.dataSource();
        execute(ds, "CREATE TABLE marks (resource TEXT PRIMARY KEY, token BIGINT NOT NULL)");
        execute(ds, "INSERT INTO marks VALUES ('billing', 33)");
        PatroniMember old = cluster.primary().orElseThrow();
        awaitReplayed(cluster.dataSource(other(old)), 33);

        assertThat(cluster.pauseReplication()).isEqualTo(1);
        execute(ds, "UPDATE marks SET token = 34 WHERE resource = 'billing'"); // acknowledged: asynchronous
        assertThat(token(ds)).isEqualTo(34);
        PatroniMember killed = cluster.killPrimary();
        PatroniMember promoted = cluster.awaitNewPrimary(killed, Duration.ofSeconds(60));

        assertThat(promoted).isNotEqualTo(killed);
        assertThat(token(cluster.dataSource()))
                .as("the acknowledged 34 did not survive the failover")
                .isEqualTo(33);
    }

    private static PatroniMember other(PatroniMember member) {
        return cluster.members().stream()
                .filter(m -> !m.equals(member))
                .findFirst()
                .orElseThrow();
    }

    /** Polls the standby until it replayed the mark (the poll stands for "replication caught up"). */
    private static void awaitReplayed(DataSource standby, long token) throws SQLException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (token(standby) == token) {
                    return;
                }
            } catch (SQLException notYet) {
                // the table may not have arrived yet
            }
            java.util.concurrent.locks.LockSupport.parkNanos(
                    Duration.ofMillis(50).toNanos());
        }
        throw new AssertionError("the standby did not replay token " + token);
    }

    private static long token(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT token FROM marks WHERE resource = 'billing'")) {
            return r.next() ? r.getLong(1) : -1;
        }
    }

    private static void execute(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
