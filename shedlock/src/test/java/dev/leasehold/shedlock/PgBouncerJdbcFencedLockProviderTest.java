package dev.leasehold.shedlock;

import javax.sql.DataSource;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The contract through a PgBouncer in transaction pooling mode: every lock statement is one auto-commit statement,
 * whichever server connection runs it. Skipped, with a one-line hint, unless its URL is set.
 */
@EnabledIfEnvironmentVariable(
        named = TestDatabases.PGBOUNCER,
        matches = ".*\\S.*",
        disabledReason = TestDatabases.PGBOUNCER_HINT)
class PgBouncerJdbcFencedLockProviderTest extends JdbcProviderContract {

    @Override
    protected DataSource database() {
        return TestDatabases.pgBouncer("shedlock");
    }
}
