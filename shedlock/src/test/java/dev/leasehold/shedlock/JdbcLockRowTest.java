package dev.leasehold.shedlock;

import static dev.leasehold.shedlock.ProviderSupport.config;
import static dev.leasehold.shedlock.ProviderSupport.lock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.StoreException;
import dev.leasehold.testkit.ClassPaths;
import java.net.URLClassLoader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.ClockProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What is particular to the JDBC provider, on H2: its row, its token, its clock, its refusals, no Curator. */
@Timeout(60)
class JdbcLockRowTest {

    private static final DataSource DB = installed(TestDatabases.h2("shedlock-rows"));

    private final JdbcFencedLockProvider provider = new JdbcFencedLockProvider(DB);

    private static DataSource installed(DataSource ds) {
        FencedSchema.install(ds);
        return ds;
    }

    @Test
    void withoutTheLeaseTableTheErrorSaysToRunFencedSchemaInstall() {
        JdbcFencedLockProvider bare = new JdbcFencedLockProvider(TestDatabases.h2("shedlock-no-schema"));
        assertThatThrownBy(() -> bare.lock(config("nightly")))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("FencedSchema.install");
    }

    @Test
    void badArgumentsAreRefusedNamingThem() {
        assertThatThrownBy(() -> new JdbcFencedLockProvider(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dataSource");
        assertThatThrownBy(() -> new JdbcFencedLockProvider(DB, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("config");
        assertThatThrownBy(() -> provider.lock(config("too-long", Duration.ofDays(400), Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtMostFor");
        assertThatThrownBy(() -> provider.lock(config("x".repeat(201))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
    }

    @Test
    void theTokenIsTheGenerationOfTheLocksRow() throws SQLException {
        FencedSimpleLock first = lock(provider, "row-token", Duration.ofMinutes(5), Duration.ZERO);
        assertThat(generation("row-token")).isEqualTo(first.token());
        first.unlock();
        FencedSimpleLock second = lock(provider, "row-token", Duration.ofMinutes(5), Duration.ZERO);
        assertThat(generation("row-token")).isEqualTo(second.token()).isEqualTo(first.token() + 1);
        second.unlock();
    }

    @Test
    void aConfigWithAnotherTablePrefixUsesItsOwnTable() {
        DataSource other = TestDatabases.h2("shedlock-prefix");
        StoreConfig config = StoreConfig.defaults().withTablePrefix("jobs_");
        FencedSchema.install(other, config);
        lock(new JdbcFencedLockProvider(other, config), "prefixed", Duration.ofMinutes(5), Duration.ZERO)
                .unlock();
        assertThatThrownBy(() -> new JdbcFencedLockProvider(other).lock(config("prefixed")))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("FencedSchema.install");
    }

    @Test
    void thisJvmsClockDecidesNothing() {
        try {
            ClockProvider.setClock(Clock.offset(Clock.systemUTC(), Duration.ofHours(1)));
            FencedSimpleLock held = lock(provider, "jvm-clock", Duration.ofMinutes(5), Duration.ZERO);
            assertThat(provider.lock(config("jvm-clock")))
                    .as("held, whatever this JVM's clock says")
                    .isEmpty();
            held.unlock();

            ClockProvider.setClock(Clock.offset(Clock.systemUTC(), Duration.ofHours(-1)));
            lock(provider, "jvm-clock", Duration.ofMillis(100), Duration.ZERO); // never unlocked
            ProviderSupport.pause(Duration.ofMillis(250)); // past lockAtMostFor on the database's clock
            lock(provider, "jvm-clock", Duration.ofMinutes(5), Duration.ZERO).unlock();
        } finally {
            ClockProvider.setClock(Clock.systemUTC());
        }
    }

    /**
     * Curator is an optional dependency: the JDBC provider, its locks and {@link FencedLocks} run on a class path
     * without Curator and ZooKeeper.
     */
    @Test
    void theJdbcProviderRunsWithoutCuratorOnTheClassPath() throws Exception {
        try (URLClassLoader loader =
                new URLClassLoader(ClassPaths.without("curator-", "zookeeper"), ClassLoader.getPlatformClassLoader())) {
            assertThatThrownBy(() -> Class.forName("org.apache.curator.framework.CuratorFramework", false, loader))
                    .isInstanceOf(ClassNotFoundException.class);
            Object token = loader.loadClass(WithoutCurator.class.getName())
                    .getMethod("lockAndUnlock", String.class)
                    .invoke(null, "jdbc:h2:mem:shedlock-without-curator;DB_CLOSE_DELAY=-1");
            assertThat((Long) token).isPositive();
        }
    }

    private static long generation(String name) throws SQLException {
        try (Connection c = DB.getConnection();
                PreparedStatement s = c.prepareStatement("SELECT generation FROM leasehold_leases WHERE name = ?")) {
            s.setString(1, name);
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getLong(1);
            }
        }
    }
}
