package dev.leasehold.store;

import dev.leasehold.store.testing.IsolatedDataSource;
import dev.leasehold.store.testing.MariaDb;
import dev.leasehold.store.testing.WithMariaDb;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;

/**
 * The transaction-ownership contract on a real MariaDB server ({@link MariaDb}: skipped unless
 * LEASEHOLD_TEST_MARIADB_URL is set). Connections at a given isolation as a driver configured that way hands them
 * out; InnoDB's lock timeout counts whole seconds.
 */
@WithMariaDb
class MariaDbTransactionOwnershipTest extends TransactionOwnershipContract {

    private static final String NAME = "tx_ownership";
    private DataSource database;
    private DataSource patient;

    @BeforeAll
    void createDatabase() {
        database = MariaDb.freshDatabase(NAME, "sessionVariables=innodb_lock_wait_timeout=10");
        patient = MariaDb.dataSource(
                MariaDb.url().replaceFirst("/leasehold_test([?]|$)", "/leasehold_test_" + NAME + "$1"),
                "sessionVariables=innodb_lock_wait_timeout=600");
    }

    @Override
    protected DataSource patient() {
        return patient;
    }

    @Override
    protected DataSource database() {
        return database;
    }

    @Override
    protected DataSource plainAt(Isolation isolation) {
        return new IsolatedDataSource(database, isolation.jdbc);
    }

    @Override
    protected int sessionsWaitingOnLocks(Connection connection) throws SQLException {
        return MariaDb.waitingOnLocks(connection);
    }

    @Override
    protected long lockTimeoutMillis(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@SESSION.innodb_lock_wait_timeout")) {
            rs.next();
            return rs.getLong(1) * 1000;
        }
    }

    @Override
    protected String identityType() {
        return "BIGINT AUTO_INCREMENT";
    }
}
