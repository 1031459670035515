package dev.leasehold.spring.locks;

import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import javax.sql.DataSource;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The database contract through PgBouncer in transaction pooling mode: each lock statement is one auto-commit
 * statement, whichever server connection runs it. Tables of its own ({@code lockreg_}) in the shared test database.
 */
@EnabledIfEnvironmentVariable(
        named = "LEASEHOLD_TEST_PGBOUNCER_URL",
        matches = ".*\\S.*",
        disabledReason = "PgBouncer tests skipped: run with LEASEHOLD_TEST_PGBOUNCER_URL set (source /work/srv/env.sh)")
class PgBouncerLockRegistryTest extends JdbcLockRegistryContract {

    private static final StoreConfig CONFIG = StoreConfig.defaults().withTablePrefix("lockreg_");

    static {
        String url = System.getenv("LEASEHOLD_TEST_PGBOUNCER_URL");
        if (url != null && !url.isBlank()) {
            FencedSchema.install(bouncer(), CONFIG);
        }
    }

    private static DataSource bouncer() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(System.getenv("LEASEHOLD_TEST_PGBOUNCER_URL"));
        return ds;
    }

    @Override
    protected StoreConfig config() {
        return CONFIG;
    }

    @Override
    protected DataSource newPool() {
        return bouncer();
    }
}
