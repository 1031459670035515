package dev.leasehold.store.claims;

import dev.leasehold.store.testing.MariaDb;
import dev.leasehold.store.testing.WithMariaDb;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The claimUpTo/finishAll contract on a real MariaDB server ({@link MariaDb}; skipped unless
 * LEASEHOLD_TEST_MARIADB_URL is set).
 */
@WithMariaDb
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbClaimManyTest extends ClaimManyContract {

    private DataSource dataSource;
    private DataSource impatient;

    @BeforeAll
    void createDatabase() {
        dataSource = MariaDb.freshDatabase("claim_many", "sessionVariables=innodb_lock_wait_timeout=10");
        impatient = MariaDb.dataSource(
                MariaDb.url().replaceFirst("/leasehold_test([?]|$)", "/leasehold_test_claim_many$1"),
                "sessionVariables=innodb_lock_wait_timeout=1");
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
