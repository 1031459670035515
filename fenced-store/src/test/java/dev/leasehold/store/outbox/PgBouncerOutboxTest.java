package dev.leasehold.store.outbox;

import dev.leasehold.store.testing.PgBouncer;
import dev.leasehold.store.testing.WithPgBouncer;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The outbox's contract through PgBouncer in transaction pooling mode ({@link PgBouncer}: skipped unless its URL is set). */
@WithPgBouncer
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgBouncerOutboxTest extends OutboxContract {

    private DataSource dataSource;

    @BeforeAll
    void createDatabase() {
        dataSource = PgBouncer.freshDatabase("outbox");
    }

    @Override
    protected DataSource dataSource() {
        return dataSource;
    }
}
