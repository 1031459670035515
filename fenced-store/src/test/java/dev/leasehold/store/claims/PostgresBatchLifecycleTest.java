package dev.leasehold.store.claims;

import dev.leasehold.store.testing.SharedPostgres;
import javax.sql.DataSource;

/** Batch attempts, failures and stats on PostgreSQL 17. */
class PostgresBatchLifecycleTest extends BatchLifecycleContract {

    private static DataSource database;

    @Override
    protected DataSource dataSource() {
        if (database == null) {
            database = SharedPostgres.freshDatabase("batch_lifecycle");
        }
        return database;
    }
}
