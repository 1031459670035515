package dev.leasehold.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** The contract on H2 2.x, in memory. */
class H2FencedStoreTest extends FencedStoreContract {

    private static final JdbcDataSource H2 = new JdbcDataSource();
    private static final JdbcDataSource IMPATIENT = new JdbcDataSource();

    static {
        // LOCK_TIMEOUT: a lock wait longer than this fails the statement.
        H2.setURL("jdbc:h2:mem:fenced-contract;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        IMPATIENT.setURL("jdbc:h2:mem:fenced-contract;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=1");
    }

    @Override
    protected DataSource impatientDataSource() {
        return IMPATIENT;
    }

    @Override
    protected DataSource dataSource() {
        return H2;
    }

    @Override
    protected int sessionsWaitingOnLocks(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS" + " WHERE BLOCKER_ID IS NOT NULL")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
