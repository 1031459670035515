package dev.leasehold.store;

import dev.leasehold.store.testing.PgBouncer;
import dev.leasehold.store.testing.PgBouncerDatabase;
import dev.leasehold.store.testing.WithPgBouncer;
import javax.sql.DataSource;
import org.junit.jupiter.api.TestInstance;

/** The fence history through PgBouncer in transaction pooling mode ({@link PgBouncer}: skipped unless its URL is set). */
@WithPgBouncer
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgBouncerFenceHistoryTest extends FenceHistoryContract {

    private final PgBouncerDatabase database = new PgBouncerDatabase("fence_history");

    @Override
    protected DataSource dataSource() {
        return database.dataSource();
    }
}
