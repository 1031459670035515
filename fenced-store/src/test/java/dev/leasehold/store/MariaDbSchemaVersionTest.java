package dev.leasehold.store;

import dev.leasehold.store.testing.MariaDb;
import dev.leasehold.store.testing.WithMariaDb;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * Schema versions on a real MariaDB server ({@link MariaDb}: skipped unless LEASEHOLD_TEST_MARIADB_URL is set). No
 * release before schema versions ever ran on MariaDB; the "version 0" tables here are that release's DDL in MariaDB's
 * types, to prove the upgrade path's statements are idempotent here too.
 */
@WithMariaDb
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbSchemaVersionTest extends SchemaVersionContract {

    private DataSource dataSource;

    @BeforeAll
    void createDatabase() {
        dataSource = MariaDb.freshDatabase("schema_version");
    }

    @Override
    protected DataSource dataSource() {
        return dataSource;
    }

    @Override
    protected Database database() {
        return Database.MARIADB;
    }

    @Override
    protected String textType() {
        return "MEDIUMTEXT";
    }

    @Override
    protected String timestampType() {
        return "DATETIME(6)";
    }

    @Override
    protected String identityType() {
        return "BIGINT NOT NULL AUTO_INCREMENT UNIQUE";
    }
}
