package dev.leasehold.store;

import dev.leasehold.store.testing.MariaDb;
import dev.leasehold.store.testing.WithMariaDb;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;

/**
 * The frozen-holder contract on a real MariaDB server ({@link MariaDb}; skipped unless LEASEHOLD_TEST_MARIADB_URL is
 * set): the store's SET before the transaction carries {@code idle_transaction_timeout} (whole seconds), its SET
 * after puts the session's own back ({@code MariaDbSessionSettingsTest}), and the server ends the session of a
 * holder idle that long.
 */
@WithMariaDb
class MariaDbFrozenHolderTest extends FrozenHolderContract {

    private DataSource database;

    @BeforeAll
    void createDatabase() {
        database = MariaDb.freshDatabase("frozen_holder");
    }

    @Override
    protected DataSource database() {
        return database;
    }

    @Override
    protected String idleBoundQuery() {
        return "SELECT @@SESSION.idle_transaction_timeout";
    }

    @Override
    protected String idleBoundOf(Duration bound) {
        return String.valueOf(bound.toSeconds());
    }
}
