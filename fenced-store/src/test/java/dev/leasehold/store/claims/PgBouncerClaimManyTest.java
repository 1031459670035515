package dev.leasehold.store.claims;

import dev.leasehold.store.testing.PgBouncer;
import dev.leasehold.store.testing.PgBouncerDatabase;
import dev.leasehold.store.testing.WithPgBouncer;
import javax.sql.DataSource;
import org.junit.jupiter.api.TestInstance;

/** Claims at scale through PgBouncer in transaction pooling mode ({@link PgBouncer}: skipped unless its URL is set). */
@WithPgBouncer
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgBouncerClaimManyTest extends ClaimManyContract {

    private final PgBouncerDatabase database = new PgBouncerDatabase("claim_many");

    @Override
    protected DataSource dataSource() {
        return database.dataSource();
    }

    @Override
    protected DataSource impatientDataSource() {
        return database.impatient();
    }
}
