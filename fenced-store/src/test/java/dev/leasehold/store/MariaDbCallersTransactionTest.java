package dev.leasehold.store;

import dev.leasehold.store.testing.MariaDb;
import dev.leasehold.store.testing.WithMariaDb;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * {@link FenceGate#check(Connection, String, long)} in the caller's transaction on MariaDB ({@link MariaDb}: skipped
 * unless LEASEHOLD_TEST_MARIADB_URL is set).
 */
@WithMariaDb
class MariaDbCallersTransactionTest extends CallersTransactionContract {

    private DataSource database;

    @Override
    protected DataSource dataSource() {
        if (database == null) {
            database = MariaDb.freshDatabase("callers_transaction", "sessionVariables=innodb_lock_wait_timeout=10");
        }
        return database;
    }

    @Override
    protected int sessionsWaitingOnLocks(Connection connection) throws SQLException {
        return MariaDb.waitingOnLocks(connection);
    }

    @Override
    protected String sessionSettings(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT CONCAT_WS(' ', @@SESSION.innodb_lock_wait_timeout,"
                        + " @@SESSION.tx_isolation, IFNULL(@leasehold_check_lock_wait, 'unset'))")) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Override
    protected void setCallersLockTimeout(Connection tx) throws SQLException {
        try (Statement s = tx.createStatement()) {
            s.execute("SET SESSION innodb_lock_wait_timeout = 7");
        }
    }

    @Override
    protected String identityType() {
        return "BIGINT AUTO_INCREMENT";
    }
}
