package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.claims.BatchClaim;
import dev.leasehold.store.claims.BatchClaims;
import dev.leasehold.store.claims.BatchState;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Schema versions (issue 10): install applies numbered migrations and records them, a database created before
 * versions existed upgrades in place, {@code ddl} is what a migration tool applies, {@code verify} checks without
 * DDL and says what is wrong in one message. Each test uses its own table prefix.
 */
@Timeout(60)
abstract class SchemaVersionContract {

    protected abstract DataSource dataSource();

    protected abstract Database database();

    /** The text column type the first release used on this database. */
    protected abstract String textType();

    /** The timestamp type of this database's DDL (the first release's, for a database that had one). */
    protected String timestampType() {
        return "TIMESTAMP WITH TIME ZONE";
    }

    /** The type of an identity column in this database's DDL. */
    protected String identityType() {
        return "BIGINT GENERATED ALWAYS AS IDENTITY";
    }

    @Test
    void installAppliesEveryMigrationOnceAndRecordsIt() throws SQLException {
        StoreConfig config = StoreConfig.defaults().withTablePrefix("sv_fresh_");
        FencedSchema.install(dataSource(), config);
        FencedSchema.install(dataSource(), config);

        assertThat(versions("sv_fresh_")).containsExactly(1, 2, 3, 4, 5, 6, 7);
        assertThat(FencedSchema.currentVersion()).isEqualTo(7);
        FencedSchema.verify(dataSource(), config);
    }

    /**
     * Version 0: the tables as the first release's {@code CREATE TABLE IF NOT EXISTS} made them, with a batch claimed
     * twice (fence 2) and a fence mark. Install upgrades them: the batch has had 2 attempts, the data is kept.
     */
    @Test
    void aDatabaseCreatedBeforeSchemaVersionsUpgradesCleanly() throws SQLException {
        String p = "sv_old_";
        try (Connection c = dataSource().getConnection();
                Statement s = c.createStatement()) {
            for (String statement : firstReleaseDdl(p, textType(), timestampType(), identityType())) {
                s.execute(statement);
            }
            s.execute("INSERT INTO " + p
                    + "fence (resource, token, updated_at) VALUES ('billing', 42, CURRENT_TIMESTAMP)");
            s.execute("INSERT INTO " + p + "batches (id, payload, status, owner, lease_until, fence, enqueued_at)"
                    + " VALUES ('claimed-twice', 'p', 'processing', 'w', CURRENT_TIMESTAMP, 2, CURRENT_TIMESTAMP)");
            s.execute("INSERT INTO " + p + "batches (id, payload, status, fence, enqueued_at)"
                    + " VALUES ('waiting', 'p', 'pending', 0, CURRENT_TIMESTAMP)");
        }
        StoreConfig config = StoreConfig.defaults().withTablePrefix(p);
        assertThatThrownBy(() -> FencedSchema.verify(dataSource(), config))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("is not installed");

        FencedSchema.install(dataSource(), config);

        FencedSchema.verify(dataSource(), config);
        assertThat(versions(p)).containsExactly(1, 2, 3, 4, 5, 6, 7);
        assertThat(new FenceGate(dataSource(), config).highestToken("billing")).hasValue(42);
        BatchClaims batches = new BatchClaims(dataSource(), config);
        assertThat(batches.state("claimed-twice"))
                .get()
                .extracting(BatchState::attempts)
                .isEqualTo(2);
        BatchClaim reclaimed = batches.claimNext("w2", Duration.ofSeconds(30)).orElseThrow();
        assertThat(reclaimed.batchId()).as("its lease has ended").isEqualTo("claimed-twice");
        assertThat(reclaimed.attempt()).isEqualTo(3);
        assertThat(reclaimed.fence()).isEqualTo(3);
        assertThat(batches.claimNext("w2", Duration.ofSeconds(30)))
                .get()
                .extracting(BatchClaim::batchId)
                .isEqualTo("waiting");
    }

    @Test
    void theDdlAppliedByAnotherToolPassesVerifyAndInstallThenHasNothingToDo() throws SQLException {
        StoreConfig config = StoreConfig.defaults().withTablePrefix("sv_tool_");
        List<String> ddl = FencedSchema.ddl(database(), config);
        assertThat(ddl).allSatisfy(statement -> assertThat(statement).doesNotContain("leasehold_"));
        try (Connection c = dataSource().getConnection();
                Statement s = c.createStatement()) {
            for (String statement : ddl) {
                s.execute(statement);
            }
        }

        FencedSchema.verify(dataSource(), config);
        FencedSchema.install(dataSource(), config);
        assertThat(versions("sv_tool_")).containsExactly(1, 2, 3, 4, 5, 6, 7);
        BatchClaims batches = new BatchClaims(dataSource(), config);
        batches.enqueue("b", "p");
        assertThat(batches.claimNext("w", Duration.ofSeconds(30))).isPresent();
    }

    @Test
    void verifyNamesAnOldVersionAndWhatToApply() throws SQLException {
        StoreConfig config = StoreConfig.defaults().withTablePrefix("sv_behind_");
        FencedSchema.install(dataSource(), config);
        execute("DELETE FROM sv_behind_schema_version WHERE version >= 2");

        assertThatThrownBy(() -> FencedSchema.verify(dataSource(), config))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("is at version 1; this release needs version 7")
                .hasMessageContaining("FencedSchema.install");
    }

    @Test
    void aNewerSchemaIsRefusedByVerifyAndByInstall() throws SQLException {
        StoreConfig config = StoreConfig.defaults().withTablePrefix("sv_newer_");
        FencedSchema.install(dataSource(), config);
        execute("INSERT INTO sv_newer_schema_version (version, description, installed_at)"
                + " VALUES (99, 'from the future', CURRENT_TIMESTAMP)");

        assertThatThrownBy(() -> FencedSchema.verify(dataSource(), config))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("version 99, newer than this release");
        assertThatThrownBy(() -> FencedSchema.install(dataSource(), config))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("version 99, newer than this release");
    }

    @Test
    void verifyNamesATableThatNoLongerHasAColumnItNeeds() throws SQLException {
        StoreConfig config = StoreConfig.defaults().withTablePrefix("sv_hand_");
        FencedSchema.install(dataSource(), config);
        execute("ALTER TABLE sv_hand_batches DROP COLUMN error");

        assertThatThrownBy(() -> FencedSchema.verify(dataSource(), config))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("table sv_hand_batches cannot be read");
    }

    @Test
    void concurrentInstallsOfAFreshSchemaBothSucceedAndRecordEachVersionOnce() throws Exception {
        StoreConfig config = StoreConfig.defaults().withTablePrefix("sv_race_");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> installs = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                installs.add(pool.submit(() -> {
                    go.await();
                    FencedSchema.install(dataSource(), config);
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> install : installs) {
                install.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(versions("sv_race_")).containsExactly(1, 2, 3, 4, 5, 6, 7);
        FencedSchema.verify(dataSource(), config);
    }

    @Test
    void badInputIsRejected() {
        StoreConfig config = StoreConfig.defaults();
        assertThatThrownBy(() -> FencedSchema.ddl(null, config))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("database must not be null");
        Database other = database() == Database.H2 ? Database.POSTGRESQL : Database.H2;
        assertThatThrownBy(() -> FencedSchema.ddl(database(), config.withDatabase(other)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("config speaks " + other);
        assertThatThrownBy(() -> FencedSchema.verify(null, config)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FencedSchema.install(dataSource(), null)).isInstanceOf(IllegalArgumentException.class);
    }

    List<Integer> versions(String prefix) throws SQLException {
        List<Integer> versions = new ArrayList<>();
        try (Connection c = dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT version FROM " + prefix + "schema_version ORDER BY version")) {
            while (rs.next()) {
                versions.add(rs.getInt(1));
            }
        }
        return versions;
    }

    void execute(String sql) throws SQLException {
        try (Connection c = dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** What {@code FencedSchema.install} ran before schema versions existed (copied from that release). */
    static List<String> firstReleaseDdl(String p, String text, String ts, String identity) {
        return List.of(
                "CREATE TABLE IF NOT EXISTS " + p + "fence (resource VARCHAR(200) NOT NULL PRIMARY KEY,"
                        + " token BIGINT NOT NULL, updated_at " + ts + " NOT NULL)",
                "CREATE TABLE IF NOT EXISTS " + p + "fence_rebase (id " + identity + " PRIMARY KEY,"
                        + " resource VARCHAR(200) NOT NULL, old_token BIGINT, new_token BIGINT NOT NULL,"
                        + " operator VARCHAR(200) NOT NULL, reason VARCHAR(1000) NOT NULL, rebased_at " + ts
                        + " NOT NULL)",
                "CREATE TABLE IF NOT EXISTS " + p + "batches (id VARCHAR(200) NOT NULL PRIMARY KEY,"
                        + " seq " + identity + ", payload " + text + " NOT NULL,"
                        + " status VARCHAR(16) NOT NULL, owner VARCHAR(200), lease_until " + ts + ","
                        + " fence BIGINT NOT NULL, result " + text + ", enqueued_at " + ts + " NOT NULL,"
                        + " finished_at " + ts + ")",
                "CREATE INDEX IF NOT EXISTS " + p + "batches_claimable ON " + p + "batches (status, seq)",
                "CREATE TABLE IF NOT EXISTS " + p + "slot_runs (job VARCHAR(200) NOT NULL, slot " + ts + " NOT NULL,"
                        + " runner VARCHAR(200) NOT NULL, status VARCHAR(16) NOT NULL, lease_until " + ts
                        + " NOT NULL, fence BIGINT NOT NULL, result " + text + ", claimed_at " + ts + " NOT NULL,"
                        + " completed_at " + ts + ", PRIMARY KEY (job, slot))",
                "CREATE INDEX IF NOT EXISTS " + p + "slot_runs_running ON " + p
                        + "slot_runs (job, status, lease_until)");
    }
}
