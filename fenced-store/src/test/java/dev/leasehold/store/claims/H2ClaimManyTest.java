package dev.leasehold.store.claims;

import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** Claims at scale on H2 2.x. */
class H2ClaimManyTest extends ClaimManyContract {

    private static final String URL = "jdbc:h2:mem:claim-many;DB_CLOSE_DELAY=-1";

    @Override
    protected DataSource dataSource() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL(URL + ";LOCK_TIMEOUT=10000");
        return h2;
    }

    @Override
    protected DataSource impatientDataSource() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL(URL + ";LOCK_TIMEOUT=1");
        return h2;
    }
}
