package dev.leasehold.store;

import dev.leasehold.store.testing.PgBouncer;
import dev.leasehold.store.testing.WithPgBouncer;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The gate's contract through PgBouncer in transaction pooling mode ({@link PgBouncer}: skipped unless set). */
@WithPgBouncer
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgBouncerFencedStoreTest extends FencedStoreContract {

    private static final String NAME = "fenced_store";
    private DataSource dataSource;
    private DataSource impatient;

    @BeforeAll
    void createDatabase() {
        dataSource = PgBouncer.freshDatabase(NAME);
        impatient = PgBouncer.as("impatient", NAME, Map.of("lock_timeout", "1"));
    }

    @Override
    protected DataSource dataSource() {
        return dataSource;
    }

    @Override
    protected DataSource impatientDataSource() {
        return impatient;
    }

    @Override
    protected int sessionsWaitingOnLocks(Connection connection) throws SQLException {
        return PgBouncer.waitingOnLocks(connection, NAME);
    }
}
