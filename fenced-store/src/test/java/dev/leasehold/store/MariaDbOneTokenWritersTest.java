package dev.leasehold.store;

import dev.leasehold.store.testing.MariaDb;
import dev.leasehold.store.testing.WithMariaDb;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** One leader's writers of one resource on MariaDB ({@link MariaDb}: skipped unless LEASEHOLD_TEST_MARIADB_URL is set). */
@WithMariaDb
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbOneTokenWritersTest extends OneTokenWritersContract {

    private DataSource database;

    @BeforeAll
    void createDatabase() {
        database = MariaDb.freshDatabase("one_token_writers", "sessionVariables=innodb_lock_wait_timeout=10");
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
        return MariaDb.waitingOnLocks(connection);
    }

    @Override
    protected String identityType() {
        return "BIGINT AUTO_INCREMENT";
    }
}
