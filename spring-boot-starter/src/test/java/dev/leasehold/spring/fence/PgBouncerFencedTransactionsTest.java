package dev.leasehold.spring.fence;

import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.Assumptions;

/**
 * The contract through a real PgBouncer in transaction mode, from {@code LEASEHOLD_TEST_PGBOUNCER_URL} (with
 * {@code prepareThreshold=0}); skipped without it.
 */
class PgBouncerFencedTransactionsTest extends FencedTransactionsContract {

    static final String VARIABLE = "LEASEHOLD_TEST_PGBOUNCER_URL";

    @Override
    String url() {
        String url = System.getenv(VARIABLE);
        Assumptions.assumeTrue(
                url != null && !url.isBlank(),
                "PgBouncer tests skipped: start one with '.ci/pgbouncer start /tmp/pgb' and run with " + VARIABLE
                        + "=<the URL it prints>");
        return url;
    }

    @Override
    String sessionState(Connection connection) throws SQLException {
        return PostgresSessions.state(connection);
    }

    @Override
    boolean ddlCommits() {
        return false;
    }

    @Override
    boolean savepointRollbackDropsLocks() {
        return true;
    }

    @Override
    boolean readOnlyIsVisible() {
        return true;
    }
}
