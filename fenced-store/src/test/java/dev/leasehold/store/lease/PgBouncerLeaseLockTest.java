package dev.leasehold.store.lease;

import javax.sql.DataSource;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The lease lock's contract through a PgBouncer in transaction pooling mode (LEASEHOLD_TEST_PGBOUNCER_URL, with
 * prepareThreshold=0): every lease statement is one auto-commit statement, so nothing depends on which server
 * connection runs it.
 */
@EnabledIfEnvironmentVariable(
        named = "LEASEHOLD_TEST_PGBOUNCER_URL",
        matches = ".*\\S.*",
        disabledReason = "PgBouncer tests skipped: set LEASEHOLD_TEST_PGBOUNCER_URL (see .ci/pgbouncer)")
class PgBouncerLeaseLockTest extends LeaseLockContract {

    private static final PGSimpleDataSource BOUNCER = new PGSimpleDataSource();

    static {
        String url = System.getenv("LEASEHOLD_TEST_PGBOUNCER_URL");
        if (url != null && !url.isBlank()) {
            BOUNCER.setURL(url);
        }
    }

    @Override
    protected DataSource dataSource() {
        return BOUNCER;
    }
}
