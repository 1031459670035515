package dev.leasehold.spring.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.spring.LeaseholdConfigurationException;
import dev.leasehold.spring.lease.LeaseholdLeaseAutoConfiguration;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.testkit.PatientPostgres;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.DefaultCandidate;

/**
 * Issue 46, schema rights at start on PostgreSQL 17, with an application role that has SELECT, INSERT, UPDATE and
 * DELETE only (PostgreSQL 15+ grants no CREATE on {@code public}):
 * <ul>
 *   <li>a schema a DBA installed: the start installs nothing and runs (before: "permission denied for schema
 *       public");</li>
 *   <li>no schema: the start fails with one message naming {@code leasehold.store.install-schema=false} and where the
 *       DDL is (before: a bare StoreException stack trace);</li>
 *   <li>{@code install-schema=false} with the schema missing, or a table not granted: the start fails naming the table
 *       (before: one WARN, then no leader, forever).</li>
 * </ul>
 */
@Timeout(120)
class SchemaAtStartTest {

    private static EmbeddedPostgres postgres;
    private static DataSource app;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(LeaseholdStoreAutoConfiguration.class, LeaseholdLeaseAutoConfiguration.class))
            .withBean("dataSource", DataSource.class, () -> app)
            .withUserConfiguration(OneCandidate.class)
            .withPropertyValues("leasehold.election.backend=jdbc");

    @BeforeAll
    static void start() throws Exception {
        postgres = PatientPostgres.builder().start();
        FencedSchema.install(postgres.getPostgresDatabase(), StoreConfig.defaults()); // the DBA, once
        FencedSchema.install(
                postgres.getPostgresDatabase(), StoreConfig.defaults().withTablePrefix("ungranted_"));
        execute("CREATE ROLE app LOGIN");
        execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
        execute("GRANT USAGE ON SCHEMA public TO app");
        execute("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO app");
        execute("GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO app");
        execute("REVOKE SELECT ON ungranted_leases FROM app");
        app = postgres.getDatabase("app", "postgres");
    }

    @AfterAll
    static void stop() throws Exception {
        postgres.close();
    }

    @Test
    void aDmlOnlyRoleStartsOnASchemaADbaInstalled() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            context.getBean(FenceGate.class).advance("billing-2026-11", 1);
        });
    }

    @Test
    void aDmlOnlyRoleWithoutTheSchemaFailsNamingInstallSchemaFalseAndTheDdl() {
        runner.withPropertyValues("leasehold.store.table-prefix=absent_").run(context -> {
            assertThat(context).hasFailed();
            LeaseholdConfigurationException failure = configurationFailure(context.getStartupFailure());
            assertThat(failure.getMessage()).contains("could not be installed").contains("permission denied");
            assertThat(failure.action())
                    .contains("leasehold.store.install-schema=false")
                    .contains("schema --ddl --dialect")
                    .contains("docs/schema/postgresql.sql");
        });
    }

    @Test
    void installSchemaFalseFailsTheStartNamingTheMissingTable() {
        runner.withPropertyValues("leasehold.store.install-schema=false", "leasehold.store.table-prefix=absent_")
                .run(context -> {
                    assertThat(context).hasFailed();
                    LeaseholdConfigurationException failure = configurationFailure(context.getStartupFailure());
                    assertThat(failure.getMessage())
                            .contains("leasehold.store.install-schema=false")
                            .contains("table absent_schema_version does not exist");
                    assertThat(failure.action()).contains("schema --ddl");
                });
    }

    @Test
    void installSchemaFalseFailsTheStartNamingTheTableNotGranted() {
        runner.withPropertyValues("leasehold.store.install-schema=false", "leasehold.store.table-prefix=ungranted_")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(configurationFailure(context.getStartupFailure()).getMessage())
                            .contains("table ungranted_leases cannot be read")
                            .contains("permission denied");
                });
        runner.withPropertyValues("leasehold.store.install-schema=false")
                .run(context -> assertThat(context).hasNotFailed());
    }

    private static LeaseholdConfigurationException configurationFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof LeaseholdConfigurationException found) {
                return found;
            }
        }
        throw new AssertionError("no LeaseholdConfigurationException in " + failure, failure);
    }

    private static void execute(String sql) throws SQLException {
        try (Connection c = postgres.getPostgresDatabase().getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** One candidate, so the lease initiator needs the schema too. */
    @Configuration(proxyBeanMethods = false)
    static class OneCandidate {
        @Bean
        Candidate billing() {
            return new DefaultCandidate("app-1", "billing");
        }
    }
}
