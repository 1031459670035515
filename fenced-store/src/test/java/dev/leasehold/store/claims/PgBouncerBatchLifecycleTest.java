package dev.leasehold.store.claims;

import dev.leasehold.store.testing.PgBouncer;
import dev.leasehold.store.testing.WithPgBouncer;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** Batch attempts, failures and stats through PgBouncer in transaction pooling mode ({@link PgBouncer}: skipped unless its URL is set). */
@WithPgBouncer
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgBouncerBatchLifecycleTest extends BatchLifecycleContract {

    private DataSource dataSource;

    @BeforeAll
    void createDatabase() {
        dataSource = PgBouncer.freshDatabase("batch_lifecycle");
    }

    @Override
    protected DataSource dataSource() {
        return dataSource;
    }
}
