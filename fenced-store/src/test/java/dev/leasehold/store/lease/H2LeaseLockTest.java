package dev.leasehold.store.lease;

import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** The lease lock's contract on H2 2.x, in memory. */
class H2LeaseLockTest extends LeaseLockContract {

    private static final JdbcDataSource H2 = new JdbcDataSource();

    static {
        H2.setURL("jdbc:h2:mem:lease-lock-contract;DB_CLOSE_DELAY=-1");
    }

    @Override
    protected DataSource dataSource() {
        return H2;
    }
}
