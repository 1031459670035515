package dev.leasehold.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** {@link FenceGate#check(Connection, String, long)} in the caller's transaction on H2 2.x, in memory. */
class H2CallersTransactionTest extends CallersTransactionContract {

    private static final JdbcDataSource H2 = new JdbcDataSource();

    static {
        H2.setURL("jdbc:h2:mem:callers-transaction;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
    }

    @Override
    protected DataSource dataSource() {
        return H2;
    }

    @Override
    protected int sessionsWaitingOnLocks(Connection connection) throws SQLException {
        return intOf(connection, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL");
    }

    @Override
    protected String sessionSettings(Connection connection) throws SQLException {
        return "LOCK_TIMEOUT=" + intOf(connection, "SELECT LOCK_TIMEOUT()");
    }

    @Override
    protected void setCallersLockTimeout(Connection tx) throws SQLException {
        try (Statement s = tx.createStatement()) {
            s.execute("SET LOCK_TIMEOUT 4321");
        }
    }

    private static int intOf(Connection connection, String sql) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
