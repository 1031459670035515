package dev.leasehold.scenarios.bench;

import dev.leasehold.recipes.FencedMutex;
import dev.leasehold.spring.FencedLockRegistry;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.Lock;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The four sides {@link LocksBench} compares, each a {@link Side} that hands out, per key, one {@code lock} +
 * {@code unlock} cycle: {@link FencedLockRegistry#jdbc} and Spring Integration's own {@link JdbcLockRegistry} on one
 * database, {@link FencedMutex} and a bare Curator {@link InterProcessMutex} on one ZooKeeper client.
 *
 * <p>Thread-safety: a side is built on the bench's thread; the cycles it hands out are run by any number of threads.
 */
final class LockSides {

    /** The hold's ttl on both database sides: far longer than a cycle, so that no hold ever expires. */
    static final Duration TTL = Duration.ofSeconds(30);

    /** Where spring-integration-jdbc keeps its DDL for PostgreSQL, the INT_LOCK table among it. */
    static final String SCHEMA = "org/springframework/integration/jdbc/schema-postgresql.sql";

    /** One {@code lock} + {@code unlock} of one key, from the calling thread. */
    @FunctionalInterface
    interface Cycle {
        void run() throws Exception;
    }

    /** A lock implementation under measure: {@code cycle(key)} makes (once per key) what locks and unlocks it. */
    record Side(String name, KeyedCycles cycles) {}

    /** The cycle of a key; called once per key before the measure, the cycle then run by one or more threads. */
    @FunctionalInterface
    interface KeyedCycles {
        Cycle cycle(String key) throws Exception;
    }

    private LockSides() {}

    /**
     * FencedLockRegistry.jdbc (its lease table under {@code prefix}) and then JdbcLockRegistry (the INT_LOCK table of
     * spring-integration-jdbc's own schema-postgresql.sql, under {@code prefix}), both on {@code pool}, ttl {@link
     * #TTL}. {@code closing} gets what to close at the end.
     */
    static List<Side> jdbc(DataSource pool, String prefix, List<AutoCloseable> closing) throws Exception {
        StoreConfig config = StoreConfig.defaults().withTablePrefix(prefix);
        FencedSchema.install(pool, config);
        FencedLockRegistry fenced = FencedLockRegistry.jdbc(pool, config, TTL);

        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute(intLockDdl().replace("INT_LOCK", prefix + "INT_LOCK"));
        }
        DefaultLockRepository repository = new DefaultLockRepository(pool);
        repository.setPrefix(prefix + "INT_");
        // what Spring's context would do: the transaction manager a Boot application has, then the bean's callbacks
        repository.setTransactionManager(new DataSourceTransactionManager(pool));
        repository.afterPropertiesSet();
        repository.afterSingletonsInstantiated();
        closing.add(repository::close); // deletes this client's rows
        JdbcLockRegistry theirs =
                new JdbcLockRegistry(repository, TTL); // the ttl each acquire passes to the repository

        return List.of(
                new Side("FencedLockRegistry.jdbc", key -> registryCycle(fenced, key)),
                new Side("JdbcLockRegistry", key -> registryCycle(theirs, key)));
    }

    /**
     * FencedMutex and then a bare InterProcessMutex, both on {@code client}, each key a path of its own under a fresh
     * root. The mutexes are closed through {@code closing}.
     */
    static List<Side> zookeeper(CuratorFramework client, String root, List<AutoCloseable> closing) {
        return List.of(
                new Side("FencedMutex", key -> {
                    FencedMutex mutex = new FencedMutex(client, root + "/fenced/" + key, "bench-" + key);
                    closing.add(mutex);
                    return () -> {
                        mutex.acquire();
                        mutex.release();
                    };
                }),
                new Side("InterProcessMutex", key -> {
                    InterProcessMutex mutex = new InterProcessMutex(client, root + "/curator/" + key);
                    return () -> {
                        mutex.acquire();
                        mutex.release();
                    };
                }));
    }

    /** As applications use a registry: obtain the key's lock (a cache look-up), lock, unlock. */
    private static Cycle registryCycle(LockRegistry<?> registry, String key) {
        return () -> {
            Lock lock = registry.obtain(key);
            lock.lock();
            lock.unlock();
        };
    }

    /** The CREATE TABLE INT_LOCK statement of spring-integration-jdbc's schema for PostgreSQL, read from its jar. */
    static String intLockDdl() throws IOException {
        String schema;
        try (InputStream in = JdbcLockRegistry.class.getClassLoader().getResourceAsStream(SCHEMA)) {
            if (in == null) {
                throw new IllegalStateException(SCHEMA + " is not on the class path (spring-integration-jdbc)");
            }
            schema = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<String> found = new ArrayList<>();
        Arrays.stream(schema.split(";"))
                .map(String::strip)
                .filter(statement -> statement.matches("(?is)(?:--[^\\n]*\\n\\s*)*CREATE TABLE INT_LOCK\\s*\\(.*"))
                .forEach(found::add);
        if (found.size() != 1) {
            throw new IllegalStateException(
                    "expected one CREATE TABLE INT_LOCK in " + SCHEMA + ", found " + found.size());
        }
        return found.get(0);
    }
}
