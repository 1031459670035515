package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.testing.EmbeddedPostgresSupport;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The transaction-ownership contract on a real PostgreSQL 17. Connections at a given isolation come from the
 * server's {@code default_transaction_isolation}, set per connection as a database default would be.
 */
class PostgresTransactionOwnershipTest extends TransactionOwnershipContract {

    private static final String DATABASE = "tx_ownership";
    private DataSource database;
    private DataSource patient;

    @BeforeAll
    void createDatabase() throws SQLException {
        DataSource admin = EmbeddedPostgresSupport.shared().getPostgresDatabase();
        try (Connection c = admin.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + DATABASE + "'")) {
            if (!rs.next()) {
                s.execute("CREATE DATABASE " + DATABASE);
            }
        }
        database = at("read\\ committed");
        patient = EmbeddedPostgresSupport.shared()
                .getDatabase("postgres", DATABASE, Map.of("options", "-c lock_timeout=600000"));
    }

    @Override
    protected DataSource patient() {
        return patient;
    }

    private DataSource at(String isolation) {
        return EmbeddedPostgresSupport.shared()
                .getDatabase(
                        "postgres",
                        DATABASE,
                        Map.of("options", "-c default_transaction_isolation=" + isolation + " -c lock_timeout=10000"));
    }

    @Override
    protected DataSource database() {
        return database;
    }

    @Override
    protected DataSource plainAt(Isolation isolation) {
        return at(isolation.name().toLowerCase().replace("_", "\\ "));
    }

    @Override
    protected int sessionsWaitingOnLocks(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                        + " AND datname = '" + DATABASE + "'")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Override
    protected long lockTimeoutMillis(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT setting FROM pg_settings WHERE name = 'lock_timeout'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * A commit that fails (here a deferred unique constraint, checked at commit) is reported as an unknown outcome,
     * not as a rollback: in general (a connection lost during COMMIT) the store cannot know.
     */
    @Test
    void aFailedCommitIsReportedAsAnUnknownOutcomeNotAsARollback() throws SQLException {
        try (Connection c = database.getConnection();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS tx_deferred");
            s.execute("CREATE TABLE tx_deferred (id INT, CONSTRAINT tx_deferred_once UNIQUE (id)"
                    + " DEFERRABLE INITIALLY DEFERRED)");
        }
        FenceGate gate = new FenceGate(database);
        assertThatThrownBy(() -> gate.write("r", 1, tx -> {
                    try (Statement s = tx.createStatement()) {
                        s.execute("INSERT INTO tx_deferred VALUES (1), (1)");
                    }
                }))
                .isInstanceOfSatisfying(CommitOutcomeUnknownException.class, e -> {
                    assertThat(e.retryable()).isFalse();
                    assertThat(e)
                            .hasMessageContaining(
                                    "fenced write to 'r' with token 1: the commit failed, so the outcome is"
                                            + " unknown");
                    assertThat(e.sqlException().getSQLState()).isEqualTo("23505");
                });
    }
}
