package dev.leasehold.spring.fence;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** The contract on H2 (in memory). */
class H2FencedTransactionsTest extends FencedTransactionsContract {

    @Override
    String url() {
        return "jdbc:h2:mem:fenced-transactions;DB_CLOSE_DELAY=-1";
    }

    @Override
    String username() {
        return "sa";
    }

    @Override
    String sessionState(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT LOCK_TIMEOUT()")) {
            row.next();
            return "lockTimeout=" + row.getLong(1);
        }
    }

    @Override
    boolean ddlCommits() {
        return true;
    }

    @Override
    boolean savepointRollbackDropsLocks() {
        return true;
    }

    @Override
    boolean readOnlyIsVisible() {
        return false;
    }
}
