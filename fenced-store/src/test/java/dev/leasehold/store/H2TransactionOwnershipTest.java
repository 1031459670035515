package dev.leasehold.store;

import dev.leasehold.store.testing.IsolatedDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** The transaction-ownership contract on H2 2.x, in memory. */
class H2TransactionOwnershipTest extends TransactionOwnershipContract {

    private static final JdbcDataSource H2 = new JdbcDataSource();
    private static final JdbcDataSource PATIENT = new JdbcDataSource();

    static {
        H2.setURL("jdbc:h2:mem:tx-ownership;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        PATIENT.setURL("jdbc:h2:mem:tx-ownership;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=600000");
    }

    @Override
    protected DataSource patient() {
        return PATIENT;
    }

    @Override
    protected DataSource database() {
        return H2;
    }

    @Override
    protected DataSource plainAt(Isolation isolation) {
        return new IsolatedDataSource(H2, isolation.jdbc);
    }

    /**
     * Sessions blocked on a row, or inside an insert of a fence row: H2 names no blocker for a wait on a unique key
     * that another transaction inserted and has not committed, and such an insert otherwise takes microseconds.
     */
    @Override
    protected int sessionsWaitingOnLocks(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS"
                        + " WHERE SESSION_ID <> SESSION_ID() AND (BLOCKER_ID IS NOT NULL"
                        + " OR EXECUTING_STATEMENT LIKE 'INSERT INTO leasehold_fence %')")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Override
    protected long lockTimeoutMillis(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT LOCK_TIMEOUT()")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
