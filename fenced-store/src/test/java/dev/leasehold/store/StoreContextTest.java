package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

class StoreContextTest {

    @Test
    void theDialectIsDetectedAndCanBeForced() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:detect;DB_CLOSE_DELAY=-1");
        FencedSchema.install(h2);
        new FenceGate(h2).advance("r", 1);
        FencedSchema.install(
                h2, StoreConfig.defaults().withDatabase(Database.H2).withTablePrefix("forced_"));
        FenceGate forced = new FenceGate(
                h2, StoreConfig.defaults().withDatabase(Database.H2).withTablePrefix("forced_"));
        forced.advance("r", 2);
        assertThat(forced.highestToken("r")).hasValue(2);
    }

    @Test
    void anUnknownDatabaseIsRefusedWithItsName() {
        JdbcDataSource h2 = new JdbcDataSource();
        // H2 pretending to be another product is not possible; check the mapping directly instead.
        assertThat(dev.leasehold.store.internal.StoreContextAccess.map("PostgreSQL"))
                .isEqualTo(Database.POSTGRESQL);
        assertThat(dev.leasehold.store.internal.StoreContextAccess.map("H2")).isEqualTo(Database.H2);
        assertThat(dev.leasehold.store.internal.StoreContextAccess.map("MariaDB"))
                .isEqualTo(Database.MARIADB);
        assertThat(dev.leasehold.store.internal.StoreContextAccess.map("MySQL")).isEqualTo(Database.MYSQL);
        assertThatThrownBy(() -> dev.leasehold.store.internal.StoreContextAccess.map("Oracle"))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("'Oracle'");
        assertThatThrownBy(() -> new FenceGate(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("dataSource must not be null");
        assertThatThrownBy(() -> new FenceGate(h2, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("config must not be null");
    }
}
