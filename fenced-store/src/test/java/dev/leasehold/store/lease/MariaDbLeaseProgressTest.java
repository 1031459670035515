package dev.leasehold.store.lease;

import dev.leasehold.store.testing.MariaDb;
import dev.leasehold.store.testing.WithMariaDb;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The lease election's progress deadline on a real MariaDB server ({@link MariaDb}: skipped unless its URL is set). */
@WithMariaDb
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbLeaseProgressTest extends LeaseProgressContract {

    private DataSource dataSource;

    @BeforeAll
    void createDatabase() {
        dataSource = MariaDb.freshDatabase("lease_progress");
    }

    @Override
    protected DataSource dataSource() {
        return dataSource;
    }
}
