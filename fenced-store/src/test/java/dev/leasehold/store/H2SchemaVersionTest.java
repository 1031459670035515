package dev.leasehold.store;

import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** Schema versions on H2 2.x. */
class H2SchemaVersionTest extends SchemaVersionContract {

    private static final JdbcDataSource H2 = new JdbcDataSource();

    static {
        H2.setURL("jdbc:h2:mem:schema-version;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
    }

    @Override
    protected DataSource dataSource() {
        return H2;
    }

    @Override
    protected Database database() {
        return Database.H2;
    }

    @Override
    protected String textType() {
        return "CHARACTER VARYING";
    }
}
