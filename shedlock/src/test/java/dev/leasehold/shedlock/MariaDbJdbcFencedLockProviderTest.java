package dev.leasehold.shedlock;

import javax.sql.DataSource;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/** The contract on a real MariaDB server: skipped, with a one-line hint, unless its URL is set. */
@EnabledIfEnvironmentVariable(
        named = TestDatabases.MARIADB,
        matches = ".*\\S.*",
        disabledReason = TestDatabases.MARIADB_HINT)
class MariaDbJdbcFencedLockProviderTest extends JdbcProviderContract {

    @Override
    protected DataSource database() {
        return TestDatabases.mariaDb("shedlock");
    }
}
