package dev.leasehold.store.outbox;

import dev.leasehold.store.testing.PgBouncer;
import dev.leasehold.store.testing.PgBouncerDatabase;
import dev.leasehold.store.testing.WithPgBouncer;
import javax.sql.DataSource;
import org.junit.jupiter.api.TestInstance;

/** The outbox's contract through PgBouncer in transaction pooling mode ({@link PgBouncer}: skipped unless its URL is set). */
@WithPgBouncer
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgBouncerOutboxTest extends OutboxContract {

    private final PgBouncerDatabase database = new PgBouncerDatabase("outbox");

    @Override
    protected DataSource dataSource() {
        return database.dataSource();
    }
}
