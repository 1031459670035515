package dev.leasehold.micrometer;

import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** The store meters on H2 2.x, in memory. */
class H2StoreMetersTest extends StoreMetersContract {

    @Override
    protected DataSource freshDatabase() {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:meters-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        return ds;
    }
}
