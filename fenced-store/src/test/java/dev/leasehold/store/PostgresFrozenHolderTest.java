package dev.leasehold.store;

import dev.leasehold.store.testing.SharedPostgres;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;

/** The frozen-holder contract on a real PostgreSQL 17 (zonky). */
class PostgresFrozenHolderTest extends FrozenHolderContract {

    private DataSource database;

    @BeforeAll
    void createDatabase() {
        database = SharedPostgres.freshDatabase("frozen_holder");
    }

    @Override
    protected DataSource database() {
        return database;
    }
}
