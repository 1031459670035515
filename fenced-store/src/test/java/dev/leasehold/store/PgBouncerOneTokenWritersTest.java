package dev.leasehold.store;

import dev.leasehold.store.testing.PgBouncer;
import dev.leasehold.store.testing.PgBouncerDatabase;
import dev.leasehold.store.testing.WithPgBouncer;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.TestInstance;

/**
 * One leader's writers of one resource through PgBouncer in transaction pooling mode ({@link PgBouncer}: skipped
 * unless set): the fence's advisory locks are transaction-level, so they never stay on a server connection.
 */
@WithPgBouncer
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgBouncerOneTokenWritersTest extends OneTokenWritersContract {

    private final PgBouncerDatabase database = new PgBouncerDatabase("one_token_writers");

    @Override
    protected DataSource dataSource() {
        return database.dataSource();
    }

    @Override
    protected boolean writersShareTheMark() {
        return true;
    }

    @Override
    protected int sessionsWaitingOnLocks(Connection connection) throws SQLException {
        return database.waitingOnLocks(connection);
    }
}
