package dev.leasehold.store.outbox;

import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** The outbox's contract on H2 2.x, in memory. */
class H2OutboxTest extends OutboxContract {

    private static final JdbcDataSource H2 = new JdbcDataSource();

    static {
        H2.setURL("jdbc:h2:mem:outbox-contract;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
    }

    @Override
    protected DataSource dataSource() {
        return H2;
    }
}
