package dev.leasehold.store.lease;

import dev.leasehold.store.testing.MariaDb;
import dev.leasehold.store.testing.WithMariaDb;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The lease lock's contract on a real MariaDB server ({@link MariaDb}: skipped unless its URL is set). */
@WithMariaDb
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbLeaseLockTest extends LeaseLockContract {

    private DataSource dataSource;

    @BeforeAll
    void createDatabase() {
        dataSource = MariaDb.freshDatabase("lease_lock");
    }

    @Override
    protected DataSource dataSource() {
        return dataSource;
    }
}
