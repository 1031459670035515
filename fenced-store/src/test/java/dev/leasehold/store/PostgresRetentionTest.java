package dev.leasehold.store;

import dev.leasehold.store.testing.SharedPostgres;
import javax.sql.DataSource;

/** Retention on PostgreSQL 17. */
class PostgresRetentionTest extends RetentionContract {

    private static DataSource database;

    @Override
    protected DataSource dataSource() {
        if (database == null) {
            database = SharedPostgres.freshDatabase("retention");
        }
        return database;
    }
}
