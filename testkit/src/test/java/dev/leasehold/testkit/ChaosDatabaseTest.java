package dev.leasehold.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
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

    /**
     * Issue 42: with {@code -ifNotExists} any local process could open a database of its own on the campaign's H2
     * server, as its administrator, and run Java code in the campaign's JVM with {@code CREATE ALIAS}.
     */
    @Test
    void h2ServesOnlyItsOwnDatabaseAndOnlyWithItsPassword() throws Exception {
        try (ChaosDatabase h2 = ChaosDatabase.h2()) {
            String server = h2.jdbcUrl().substring(0, h2.jdbcUrl().indexOf("/chaos"));
            assertThatThrownBy(() -> DriverManager.getConnection(server + "/intruder", "sa", "sa")
                            .close())
                    .as("a database of another name cannot be created through the server")
                    .isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> DriverManager.getConnection(h2.jdbcUrl(), h2.user(), "wrong")
                            .close())
                    .as("the campaign's database refuses a wrong password")
                    .isInstanceOf(SQLException.class);
            assertThatThrownBy(() ->
                            DriverManager.getConnection(h2.jdbcUrl(), "sa", "").close())
                    .isInstanceOf(SQLException.class);
            assertThat(h2.password()).hasSize(24);
            assertThat(server).as("loopback only").startsWith("jdbc:h2:tcp://127.0.0.1:");
            assertThat(scalar(h2, "SELECT 1")).as("its own credentials work").isEqualTo("1");
            h2.restart();
            assertThat(scalar(h2, "SELECT 1")).as("and work after a restart").isEqualTo("1");
        }
    }

    /**
     * Issue 42: zonky's {@code initdb -A trust} lets any local user in as the superuser, who can then run programs
     * with {@code COPY ... TO PROGRAM}. The campaign's PostgreSQL takes only its random password, after a crash too.
     */
    @Test
    void postgresTakesOnlyItsPasswordBeforeAndAfterACrash() throws Exception {
        NotRoot.require();
        try (ChaosDatabase postgres = ChaosDatabase.embeddedPostgres()) {
            assertRefusedWithoutThePassword(postgres);
            assertThat(postgres.jdbcUrl()).as("no password in the URL").doesNotContain(postgres.password());
            postgres.restart();
            assertRefusedWithoutThePassword(postgres);
            assertThat(scalar(postgres, "SELECT 1")).isEqualTo("1");
        }
    }

    private static void assertRefusedWithoutThePassword(ChaosDatabase postgres) throws SQLException {
        assertThatThrownBy(() -> DriverManager.getConnection(postgres.jdbcUrl()).close())
                .as("no password")
                .isInstanceOf(SQLException.class);
        assertThatThrownBy(() -> DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), "wrong")
                        .close())
                .as("a wrong password")
                .isInstanceOf(SQLException.class);
        try (Connection c = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password())) {
            assertThat(c.isValid(5)).as("the password").isTrue();
        }
    }
}
