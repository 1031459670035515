package dev.leasehold.store.slots;

import dev.leasehold.store.testing.SharedPostgres;
import javax.sql.DataSource;

/** Slots in time zones on PostgreSQL 17. */
class PostgresSlotZonesTest extends SlotZonesContract {

    private static DataSource database;

    @Override
    protected DataSource dataSource() {
        if (database == null) {
            database = SharedPostgres.freshDatabase("slot_zones");
        }
        return database;
    }
}
