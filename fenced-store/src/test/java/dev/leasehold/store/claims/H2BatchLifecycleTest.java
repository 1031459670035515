package dev.leasehold.store.claims;

import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** Batch attempts, failures and stats on H2 2.x. */
class H2BatchLifecycleTest extends BatchLifecycleContract {

    @Override
    protected DataSource dataSource() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:batch-lifecycle;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        return h2;
    }
}
