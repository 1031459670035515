package dev.leasehold.store.lease;

import dev.leasehold.store.testing.SharedPostgres;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The lease election's progress deadline on a real PostgreSQL 17 (the shared embedded server, a database of its own). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresLeaseProgressTest extends LeaseProgressContract {

    private DataSource dataSource;

    @BeforeAll
    void createDatabase() {
        dataSource = SharedPostgres.freshDatabase("lease_progress");
    }

    @Override
    protected DataSource dataSource() {
        return dataSource;
    }
}
