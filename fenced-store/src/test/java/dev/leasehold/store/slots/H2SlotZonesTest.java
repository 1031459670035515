package dev.leasehold.store.slots;

import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** Slots in time zones on H2 2.x. */
class H2SlotZonesTest extends SlotZonesContract {

    @Override
    protected DataSource dataSource() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:slot-zones;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        return h2;
    }
}
