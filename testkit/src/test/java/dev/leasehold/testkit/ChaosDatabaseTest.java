package dev.leasehold.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** The nemesis's database restarts: committed rows survive, open connections break, new ones work. */
class ChaosDatabaseTest {

    private static void commitARow(ChaosDatabase db) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE restart_probe (n INT)");
            s.execute("INSERT INTO restart_probe VALUES (42)");
        }
    }

    private static int probe(ChaosDatabase db) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT n FROM restart_probe")) {
            assertThat(rs.next()).isTrue();
            return rs.getInt(1);
        }
    }

    private static String scalar(ChaosDatabase db, String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Test
    void h2RestartsFromItsFile() throws Exception {
        try (ChaosDatabase h2 = ChaosDatabase.h2()) {
            commitARow(h2);
            try (Connection before = h2.dataSource().getConnection()) {
                h2.restart();
                assertThatThrownBy(() -> before.createStatement().executeQuery("SELECT 1"))
                        .as("a connection from before the restart is broken")
                        .isInstanceOf(SQLException.class);
            }
            assertThat(probe(h2)).isEqualTo(42);
        }
    }

    /**
     * Between restarts H2 stays open (a session id is never reused) and never compacts on close: H2 2.3.232 can lose
     * committed rows when it compacts while closing (H2 issue 4247), and by default it closes whenever its last
     * connection closes.
     */
    @Test
    void h2StaysOpenBetweenConnectionsAndNeverCompactsOnClose() throws Exception {
        try (ChaosDatabase h2 = ChaosDatabase.h2()) {
            long first = Long.parseLong(scalar(h2, "SELECT SESSION_ID()"));
            long second = Long.parseLong(scalar(h2, "SELECT SESSION_ID()"));
            assertThat(second)
                    .as("the second connection's session comes from the same open database, not a reopened one")
                    .isGreaterThan(first);
            assertThat(scalar(
                            h2,
                            "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS"
                                    + " WHERE SETTING_NAME = 'MAX_COMPACT_TIME'"))
                    .as("no compaction on close")
                    .isEqualTo("0");
            commitARow(h2);
            h2.restart();
            assertThat(probe(h2)).as("a row committed before SHUTDOWN").isEqualTo(42);
        }
    }

    @Test
    void postgresIsCrashedAndRecovers() throws Exception {
        NotRoot.require();
        try (ChaosDatabase postgres = ChaosDatabase.embeddedPostgres()) {
            assertThat(scalar(postgres, "SHOW synchronous_commit"))
                    .as("an acknowledged commit is in the WAL")
                    .isEqualTo("on");
            commitARow(postgres);
            String started = scalar(postgres, "SELECT pg_postmaster_start_time()");
            String url = postgres.jdbcUrl();
            try (Connection before = postgres.dataSource().getConnection()) {
                postgres.restart();
                assertThatThrownBy(() -> before.createStatement().executeQuery("SELECT 1"))
                        .as("a connection from before the crash is broken")
                        .isInstanceOf(SQLException.class);
            }
            assertThat(probe(postgres)).isEqualTo(42);
            assertThat(scalar(postgres, "SELECT pg_postmaster_start_time()"))
                    .as("a new postmaster")
                    .isNotEqualTo(started);
            assertThat(postgres.jdbcUrl())
                    .as("same port, so child JVMs reconnect")
                    .isEqualTo(url);
        }
    }

    @Test
    void anExternalDatabaseIsNeverRestarted() {
        assertThat(ChaosDatabase.external(
                                "jdbc:mariadb://127.0.0.1:3307/db?user=app&password=s3cret&useSsl=false", null, null)
                        .label())
                .as("a report line never shows the password")
                .isEqualTo("jdbc:mariadb://127.0.0.1:3307/db?user=app&password=***&useSsl=false");
        assertThat(ChaosDatabase.external("jdbc:postgresql://app:s3cret@host/db", null, null)
                        .label())
                .isEqualTo("jdbc:postgresql://app:***@host/db");
        ChaosDatabase external = ChaosDatabase.external("jdbc:h2:mem:external", null, null);
        assertThat(external.restartable()).isFalse();
        assertThatThrownBy(external::restart)
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("did not start");
    }
}
