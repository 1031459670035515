package dev.leasehold.store.lease;

import dev.leasehold.store.testing.PgBouncer;
import dev.leasehold.store.testing.WithPgBouncer;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The lease election's contract through a PgBouncer in transaction pooling mode (LEASEHOLD_TEST_PGBOUNCER_URL, with
 * prepareThreshold=0): every lease statement is one auto-commit statement, so nothing depends on which server
 * connection runs it.
 *
 * <p>On a database of its own ({@link PgBouncer#freshDatabase}): the lease contracts clean the table, and the store's
 * test JVMs run side by side (a shared database once let one class's clean-up take another's rows mid-test).
 */
@WithPgBouncer
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgBouncerLeaseElectionTest extends LeaseElectionContract {

    private DataSource dataSource;

    @BeforeAll
    void createDatabase() {
        dataSource = PgBouncer.freshDatabase("lease_election");
    }

    @Override
    protected DataSource dataSource() {
        return dataSource;
    }
}
