package dev.leasehold.store;

import dev.leasehold.store.testing.MariaDb;
import dev.leasehold.store.testing.WithMariaDb;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The fence history on a real MariaDB server ({@link MariaDb}; skipped unless LEASEHOLD_TEST_MARIADB_URL is set).
 */
@WithMariaDb
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbFenceHistoryTest extends FenceHistoryContract {

    private DataSource dataSource;

    @BeforeAll
    void createDatabase() {
        dataSource = MariaDb.freshDatabase("fence_history");
    }

    @Override
    protected DataSource dataSource() {
        return dataSource;
    }
}
