package dev.leasehold.shedlock;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.store.FencedSchema;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The contract on one database: two processes are two HikariCP pools of their own on it, a restart is a new pool;
 * the gate's resource is in the same database. A subclass names the database ({@link #database()}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JdbcProviderContract extends FencedLockProviderContract {

    private DataSource database;
    private HikariDataSource poolA;
    private HikariDataSource poolB;
    private ExtensibleLockProvider providerA;
    private ExtensibleLockProvider providerB;
    private final List<HikariDataSource> restarted = new ArrayList<>();

    /** @return a fresh database (called once per class) */
    protected abstract DataSource database();

    @BeforeAll
    void createPools() {
        database = database();
        FencedSchema.install(database);
        poolA = TestDatabases.pool(database, "process-a");
        poolB = TestDatabases.pool(database, "process-b");
        providerA = new JdbcFencedLockProvider(poolA);
        providerB = new JdbcFencedLockProvider(poolB);
        warmUp();
    }

    @AfterEach
    void closeRestarted() {
        restarted.forEach(HikariDataSource::close);
        restarted.clear();
    }

    @AfterAll
    void closePools() {
        if (poolA != null) {
            poolA.close();
            poolB.close();
        }
    }

    @Override
    protected ExtensibleLockProvider provider() {
        return providerA;
    }

    @Override
    protected ExtensibleLockProvider otherProcess() {
        return providerB;
    }

    @Override
    protected ExtensibleLockProvider restartedProcess() {
        HikariDataSource pool = TestDatabases.pool(database, "restarted");
        restarted.add(pool);
        return new JdbcFencedLockProvider(pool);
    }

    @Override
    protected DataSource resourceDatabase() {
        return database;
    }
}
