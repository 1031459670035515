package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.testing.IsolatedDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** The transaction-ownership contract on H2 2.x, in memory. */
class H2TransactionOwnershipTest extends TransactionOwnershipContract {

    private static final JdbcDataSource H2 = new JdbcDataSource();
    private static final JdbcDataSource PATIENT = new JdbcDataSource();

    static {
        H2.setURL("jdbc:h2:mem:tx-ownership;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        PATIENT.setURL("jdbc:h2:mem:tx-ownership;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=600000");
    }

    /**
     * Issue 24: why H2, unlike MariaDB, marks its transaction and checks it before the commit even when the work sends
     * nothing but plain DML: an INSERT can call a Java function that commits the gate's transaction (H2 lets it). On
     * the short path (a token that passed before) the commit is still caught before the gate commits, and what came
     * after it is rolled back.
     */
    @Test
    void aFunctionThatCommitsInsidePlainDmlIsCaughtBeforeTheGateCommits() throws SQLException {
        try (Connection c = H2.getConnection();
                Statement s = c.createStatement()) {
            s.execute(
                    "CREATE ALIAS IF NOT EXISTS LEASEHOLD_TEST_COMMITS FOR '" + Committer.class.getName() + ".commit'");
        }
        FenceGate gate = new FenceGate(H2);
        gate.advance("r", 7);
        gate.write("r", 7, tx -> insert(tx, "r", 7, "short path")); // 7 passed: the next write checks the short way
        assertThatThrownBy(() -> gate.write("r", 7, tx -> {
                    insert(tx, "r", 7, "before the function");
                    try (PreparedStatement p = tx.prepareStatement("INSERT INTO " + WRITES
                            + " (resource, token, note) VALUES (?, ?, 'committed by ' || LEASEHOLD_TEST_COMMITS())")) {
                        p.setString(1, "r");
                        p.setLong(2, 7);
                        p.executeUpdate();
                    }
                    insert(tx, "r", 7, "after the function");
                }))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("the work's SQL ended the gate's transaction");
        assertThat(notes()).contains("short path").doesNotContain("after the function");
        gate.write("r", 7, tx -> insert(tx, "r", 7, "next write")); // the gate is still usable
        assertThat(notes()).contains("next write");
    }

    /** A function for H2's {@code CREATE ALIAS}: commits the transaction of the statement that calls it. */
    public static final class Committer {
        private Committer() {}

        public static String commit(Connection connection) throws SQLException {
            connection.commit();
            return "a function";
        }
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
