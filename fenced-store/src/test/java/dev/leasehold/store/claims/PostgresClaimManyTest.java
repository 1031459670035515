package dev.leasehold.store.claims;

import dev.leasehold.store.testing.SharedPostgres;
import javax.sql.DataSource;

/** Claims at scale on PostgreSQL 17. */
class PostgresClaimManyTest extends ClaimManyContract {

    private static DataSource database;
    private static DataSource impatient;

    @Override
    protected DataSource dataSource() {
        if (database == null) {
            database = SharedPostgres.freshDatabase("claim_many");
            impatient = SharedPostgres.withLockTimeout("claim_many", 1);
        }
        return database;
    }

    @Override
    protected DataSource impatientDataSource() {
        return impatient;
    }
}
