package dev.leasehold.spring.fence;

import dev.leasehold.testkit.PatientPostgres;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;

/** The contract on embedded PostgreSQL 17. */
class PostgresFencedTransactionsTest extends FencedTransactionsContract {

    private final EmbeddedPostgres postgres = start();

    private static EmbeddedPostgres start() {
        if ("root".equals(System.getProperty("user.name"))) {
            throw new IllegalStateException("PostgreSQL refuses to run as root: run the build as an unprivileged user"
                    + " (.ci/run does that when started as root)");
        }
        try {
            return PatientPostgres.builder().start();
        } catch (IOException e) {
            throw new IllegalStateException("embedded PostgreSQL did not start", e);
        }
    }

    @Override
    void afterApplications() {
        try {
            postgres.close();
        } catch (IOException e) {
            throw new IllegalStateException("embedded PostgreSQL did not stop", e);
        }
    }

    @Override
    String url() {
        return postgres.getJdbcUrl("postgres", "postgres");
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
