package dev.leasehold.store.claims;

import dev.leasehold.store.testing.PgBouncer;
import dev.leasehold.store.testing.WithPgBouncer;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** Claims at scale through PgBouncer in transaction pooling mode ({@link PgBouncer}: skipped unless its URL is set). */
@WithPgBouncer
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgBouncerClaimManyTest extends ClaimManyContract {

    private DataSource dataSource;
    private DataSource impatient;

    @BeforeAll
    void createDatabase() {
        dataSource = PgBouncer.freshDatabase("claim_many");
        impatient = PgBouncer.as("impatient", "claim_many", Map.of("lock_timeout", "1"));
    }

    @Override
    protected DataSource dataSource() {
        return dataSource;
    }

    @Override
    protected DataSource impatientDataSource() {
        return impatient;
    }
}
