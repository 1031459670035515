package dev.leasehold.store;

import dev.leasehold.store.testing.SharedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;

/** One leader's writers of one resource on PostgreSQL 17 (a database of its own on the shared embedded server). */
class PostgresOneTokenWritersTest extends OneTokenWritersContract {

    private static DataSource database;

    @BeforeAll
    static void createDatabase() {
        database = SharedPostgres.freshDatabase("one_token_writers");
    }

    @Override
    protected DataSource dataSource() {
        return database;
    }

    @Override
    protected boolean writersShareTheMark() {
        return true;
    }

    @Override
    protected int sessionsWaitingOnLocks(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
