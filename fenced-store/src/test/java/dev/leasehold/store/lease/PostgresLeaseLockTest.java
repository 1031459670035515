package dev.leasehold.store.lease;

import dev.leasehold.store.testing.SharedPostgres;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The lease lock's contract on a real PostgreSQL 17 (the shared embedded server, a database of its own). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresLeaseLockTest extends LeaseLockContract {

    private DataSource dataSource;

    @BeforeAll
    void createDatabase() {
        dataSource = SharedPostgres.freshDatabase("lease_lock_contract");
    }

    @Override
    protected DataSource dataSource() {
        return dataSource;
    }
}
