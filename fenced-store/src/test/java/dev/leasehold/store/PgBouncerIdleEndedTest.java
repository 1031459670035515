package dev.leasehold.store;

import dev.leasehold.store.testing.PgBouncer;
import dev.leasehold.store.testing.WithPgBouncer;
import javax.sql.DataSource;

/**
 * The idle-ended contract through PgBouncer in transaction pooling mode ({@link PgBouncer}: skipped unless its URL is
 * set): the server ends the session, PgBouncer hands its error on and closes the client.
 */
@WithPgBouncer
class PgBouncerIdleEndedTest extends IdleEndedContract {

    @Override
    protected DataSource freshDatabase() {
        return PgBouncer.freshDatabase("idle_ended");
    }
}
