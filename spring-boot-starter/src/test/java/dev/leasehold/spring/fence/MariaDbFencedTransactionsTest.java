package dev.leasehold.spring.fence;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Assumptions;

/** The contract on a real MariaDB, from {@code LEASEHOLD_TEST_MARIADB_URL}; skipped without it. */
class MariaDbFencedTransactionsTest extends FencedTransactionsContract {

    static final String VARIABLE = "LEASEHOLD_TEST_MARIADB_URL";

    @Override
    String url() {
        String url = System.getenv(VARIABLE);
        Assumptions.assumeTrue(
                url != null && !url.isBlank(),
                "MariaDB tests skipped: start a server with '.ci/mariadb start /tmp/mdb' and run with " + VARIABLE
                        + "=<the URL it prints>");
        return url;
    }

    @Override
    String sessionState(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT @@SESSION.innodb_lock_wait_timeout,"
                        + " @@SESSION.tx_isolation, @leasehold_check_lock_wait")) {
            row.next();
            return "lockWait=" + row.getLong(1) + " isolation=" + row.getString(2) + " saved=" + row.getString(3);
        }
    }

    @Override
    boolean ddlCommits() {
        return true;
    }

    /** InnoDB keeps the row locks of a statement rolled back to a savepoint until the transaction ends. */
    @Override
    boolean savepointRollbackDropsLocks() {
        return false;
    }

    @Override
    boolean readOnlyIsVisible() {
        return true;
    }
}
