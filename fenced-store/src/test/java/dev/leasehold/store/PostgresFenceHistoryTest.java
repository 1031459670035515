package dev.leasehold.store;

import dev.leasehold.store.testing.SharedPostgres;
import javax.sql.DataSource;

/** The fence history on PostgreSQL 17 (embedded, the shared server, a database of its own). */
class PostgresFenceHistoryTest extends FenceHistoryContract {

    private static DataSource database;

    @Override
    protected DataSource dataSource() {
        if (database == null) {
            database = SharedPostgres.freshDatabase("fence_history");
        }
        return database;
    }
}
