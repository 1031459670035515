package dev.leasehold.store;

import dev.leasehold.store.testing.SharedPostgres;
import javax.sql.DataSource;

/** The idle-ended contract on a real PostgreSQL 17 (zonky). */
class PostgresIdleEndedTest extends IdleEndedContract {

    @Override
    protected DataSource freshDatabase() {
        return SharedPostgres.freshDatabase("idle_ended");
    }
}
