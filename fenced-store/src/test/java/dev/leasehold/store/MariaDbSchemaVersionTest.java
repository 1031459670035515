package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.testing.MariaDb;
import dev.leasehold.store.testing.WithMariaDb;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
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
    /**
     * Issue 21, defect 7: a database at version 4, its tables in {@code utf8mb4_bin} (PAD SPACE, as released), is
     * converted by version 5 to a NO PAD collation: its rows are kept, and "billing " is a resource of its own.
     */
    @Test
    void version5ConvertsTheKeysOfAVersion4DatabaseToANoPadCollation() throws SQLException {
        String p = "sv_pad_";
        StoreConfig config = StoreConfig.defaults().withTablePrefix(p);
        FencedSchema.install(dataSource, config);
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            for (String table : TABLES) {
                s.execute("ALTER TABLE " + p + table + " CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
            }
            s.execute("DELETE FROM " + p + "schema_version WHERE version >= 5"); // back to version 4
        }
        FenceGate gate = new FenceGate(dataSource, config);
        gate.advance("billing", 100);
        assertThatThrownBy(() -> gate.advance("billing ", 50))
                .as("version 4 pads: one key")
                .isInstanceOf(StaleTokenException.class);

        FencedSchema.install(dataSource, config);

        FencedSchema.verify(dataSource, config);
        assertThat(collations(p)).as("every text column of every table").containsOnly("utf8mb4_nopad_bin");
        assertThat(gate.highestToken("billing")).hasValue(100);
        gate.advance("billing ", 50);
        assertThat(gate.highestToken("billing ")).hasValue(50);
        assertThat(gate.highestToken("billing")).hasValue(100);
    }

    private static final List<String> TABLES =
            List.of("fence", "fence_rebase", "fence_history", "batches", "slot_runs", "outbox");

    private List<String> collations(String prefix) throws SQLException {
        List<String> found = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement s =
                        c.prepareStatement("SELECT DISTINCT COLLATION_NAME FROM information_schema.COLUMNS"
                                + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN (?, ?, ?, ?, ?, ?)"
                                + " AND COLLATION_NAME IS NOT NULL")) {
            for (int i = 0; i < TABLES.size(); i++) {
                s.setString(i + 1, prefix + TABLES.get(i));
            }
            try (ResultSet rows = s.executeQuery()) {
                while (rows.next()) {
                    found.add(rows.getString(1));
                }
            }
        }
        assertThat(found).as("the tables have text columns").isNotEmpty();
        return found;
    }
}
