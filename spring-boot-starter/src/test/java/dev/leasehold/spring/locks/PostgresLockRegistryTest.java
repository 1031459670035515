package dev.leasehold.spring.locks;

import dev.leasehold.store.FencedSchema;
import dev.leasehold.testkit.PatientPostgres;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The database contract on embedded PostgreSQL 17; each pool a data source of its own. */
class PostgresLockRegistryTest extends JdbcLockRegistryContract {

    private static EmbeddedPostgres postgres;

    @BeforeAll
    static void start() throws IOException {
        postgres = PatientPostgres.builder().start();
        FencedSchema.install(postgres.getPostgresDatabase());
    }

    @AfterAll
    static void stop() throws IOException {
        postgres.close();
    }

    @Override
    protected DataSource newPool() {
        return postgres.getPostgresDatabase();
    }
}
