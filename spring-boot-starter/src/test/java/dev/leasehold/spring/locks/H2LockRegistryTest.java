package dev.leasehold.spring.locks;

import dev.leasehold.store.FencedSchema;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** The database contract on in-memory H2; each pool a data source of its own on one database. */
class H2LockRegistryTest extends JdbcLockRegistryContract {

    private static final String URL = "jdbc:h2:mem:locks-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

    static {
        FencedSchema.install(pool());
    }

    private static DataSource pool() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL(URL);
        return h2;
    }

    @Override
    protected DataSource newPool() {
        return pool();
    }
}
