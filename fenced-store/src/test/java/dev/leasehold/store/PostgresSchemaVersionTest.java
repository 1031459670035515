package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.claims.BatchClaims;
import dev.leasehold.store.testing.SharedPostgres;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** Schema versions on PostgreSQL 17, and what an application role without DDL rights can do. */
class PostgresSchemaVersionTest extends SchemaVersionContract {

    private static DataSource database;

    @Override
    protected synchronized DataSource dataSource() {
        if (database == null) {
            database = SharedPostgres.freshDatabase("schema_version");
        }
        return database;
    }

    @Override
    protected Database database() {
        return Database.POSTGRESQL;
    }

    @Override
    protected String textType() {
        return "TEXT";
    }

    /**
     * The owner installs; the application's role has DML rights only (PostgreSQL 15+ grants no CREATE on
     * {@code public}): it can verify and use the store, and cannot install. Take away one table's SELECT and verify
     * names that table.
     */
    @Test
    void anApplicationRoleWithoutCreateRightsVerifiesAndUsesTheStoreButCannotInstall() throws SQLException {
        StoreConfig config = StoreConfig.defaults().withTablePrefix("sv_app_");
        FencedSchema.install(dataSource(), config);
        execute("DROP ROLE IF EXISTS app_dml");
        execute("CREATE ROLE app_dml LOGIN");
        execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
        execute("GRANT USAGE ON SCHEMA public TO app_dml");
        execute("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO app_dml");
        execute("GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO app_dml");
        DataSource app = SharedPostgres.as("app_dml", "schema_version");

        FencedSchema.verify(app, config);
        BatchClaims batches = new BatchClaims(app, config);
        batches.enqueue("b", "p");
        assertThat(batches.claimNext("w", Duration.ofSeconds(30))).isPresent();
        assertThatThrownBy(() -> FencedSchema.install(app, config.withTablePrefix("sv_app_other_")))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("permission denied");

        execute("REVOKE SELECT ON sv_app_slot_runs FROM app_dml");
        assertThatThrownBy(() -> FencedSchema.verify(app, config))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("table sv_app_slot_runs cannot be read")
                .hasMessageContaining("permission denied");
    }

    /**
     * Issue 46: a DBA installed the schema; the application's role has SELECT, INSERT, UPDATE and DELETE only
     * (PostgreSQL 15+ grants no CREATE on {@code public}). Its {@code install} finds the schema current and creates
     * nothing. Before, install always began with {@code CREATE TABLE IF NOT EXISTS leasehold_schema_version}: "permission
     * denied for schema public" on a schema that was complete.
     */
    @Test
    void aDmlOnlyRoleInstallsNothingOnACurrentSchemaADbaInstalled() throws SQLException {
        StoreConfig config = StoreConfig.defaults().withTablePrefix("sv_dba_");
        FencedSchema.install(dataSource(), config);
        execute("DROP ROLE IF EXISTS app_dml_only");
        execute("CREATE ROLE app_dml_only LOGIN");
        execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
        execute("GRANT USAGE ON SCHEMA public TO app_dml_only");
        execute("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO app_dml_only");
        execute("GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO app_dml_only");
        DataSource app = SharedPostgres.as("app_dml_only", "schema_version");

        FencedSchema.install(app, config);
        FencedSchema.install(app, config);
        FencedSchema.verify(app, config);
        assertThatThrownBy(() -> FencedSchema.install(app, config.withTablePrefix("sv_dba_missing_")))
                .as("a schema that is not there still needs DDL rights, and says so")
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("permission denied");
    }
}
