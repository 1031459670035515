package dev.leasehold.store.lease;

import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** The lease election's progress deadline on H2 2.x, in memory. */
class H2LeaseProgressTest extends LeaseProgressContract {

    private static final JdbcDataSource H2 = new JdbcDataSource();

    static {
        H2.setURL("jdbc:h2:mem:lease-progress;DB_CLOSE_DELAY=-1");
    }

    @Override
    protected DataSource dataSource() {
        return H2;
    }
}
