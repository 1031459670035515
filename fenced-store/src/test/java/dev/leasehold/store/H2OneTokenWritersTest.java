package dev.leasehold.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** One leader's writers of one resource on H2 2.x, in memory: no shared row lock, so they take turns. */
class H2OneTokenWritersTest extends OneTokenWritersContract {

    private static final JdbcDataSource H2 = new JdbcDataSource();

    static {
        H2.setURL("jdbc:h2:mem:one-token-writers;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
    }

    @Override
    protected DataSource dataSource() {
        return H2;
    }

    @Override
    protected boolean writersShareTheMark() {
        return false;
    }

    /** H2 wakes every waiter when a row lock is released, and the first to retry gets it: no queue. */
    @Override
    protected boolean laterWritersQueueBehindAnAdvance() {
        return false;
    }

    @Override
    protected int sessionsWaitingOnLocks(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
