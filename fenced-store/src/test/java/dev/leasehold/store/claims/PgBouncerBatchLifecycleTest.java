package dev.leasehold.store.claims;

import dev.leasehold.store.testing.PgBouncer;
import dev.leasehold.store.testing.PgBouncerDatabase;
import dev.leasehold.store.testing.WithPgBouncer;
import javax.sql.DataSource;
import org.junit.jupiter.api.TestInstance;

/** Batch attempts, failures and stats through PgBouncer in transaction pooling mode ({@link PgBouncer}: skipped unless its URL is set). */
@WithPgBouncer
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgBouncerBatchLifecycleTest extends BatchLifecycleContract {

    private final PgBouncerDatabase database = new PgBouncerDatabase("batch_lifecycle");

    @Override
    protected DataSource dataSource() {
        return database.dataSource();
    }
}
