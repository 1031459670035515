package dev.leasehold.store.slots;

import dev.leasehold.store.testing.PgBouncer;
import dev.leasehold.store.testing.PgBouncerDatabase;
import dev.leasehold.store.testing.WithPgBouncer;
import javax.sql.DataSource;
import org.junit.jupiter.api.TestInstance;

/** Slots in time zones through PgBouncer in transaction pooling mode ({@link PgBouncer}: skipped unless its URL is set). */
@WithPgBouncer
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgBouncerSlotZonesTest extends SlotZonesContract {

    private final PgBouncerDatabase database = new PgBouncerDatabase("slot_zones");

    @Override
    protected DataSource dataSource() {
        return database.dataSource();
    }
}
