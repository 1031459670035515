package dev.leasehold.shedlock;

import javax.sql.DataSource;

/** The contract on PostgreSQL 17 (embedded, a database of its own). */
class PostgresJdbcFencedLockProviderTest extends JdbcProviderContract {

    @Override
    protected DataSource database() {
        return TestDatabases.postgres("shedlock_contract");
    }
}
