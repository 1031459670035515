package dev.leasehold.shedlock;

import javax.sql.DataSource;

/** The contract on H2 2.x, in memory. */
class H2JdbcFencedLockProviderTest extends JdbcProviderContract {

    @Override
    protected DataSource database() {
        return TestDatabases.h2("shedlock-contract");
    }
}
