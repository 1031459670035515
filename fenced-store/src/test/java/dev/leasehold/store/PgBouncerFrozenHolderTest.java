package dev.leasehold.store;

import dev.leasehold.store.testing.PgBouncer;
import dev.leasehold.store.testing.WithPgBouncer;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;

/**
 * The frozen-holder contract through PgBouncer in transaction pooling mode ({@link PgBouncer}: skipped unless its URL
 * is set): {@code SET LOCAL} travels with the transaction, and the server connection the frozen holder kept is the
 * one the server ends.
 */
@WithPgBouncer
class PgBouncerFrozenHolderTest extends FrozenHolderContract {

    private DataSource database;

    @BeforeAll
    void createDatabase() {
        database = PgBouncer.freshDatabase("frozen_holder");
    }

    @Override
    protected DataSource database() {
        return database;
    }
}
