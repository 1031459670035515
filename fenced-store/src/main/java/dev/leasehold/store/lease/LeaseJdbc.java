package dev.leasehold.store.lease;

import dev.leasehold.store.Database;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.StoreException;
import dev.leasehold.store.internal.Dialects;
import dev.leasehold.store.internal.DurabilityCheck;
import dev.leasehold.store.internal.LeaseSql;
import dev.leasehold.store.internal.SqlDialect;
import dev.leasehold.store.internal.Tables;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.slf4j.Logger;

/**
 * The lease statements' way to the database, shared by an election's {@link LeaseRows} and a {@link LeaseLock}: each
 * statement on a connection of its own from the data source (never one of the caller's), in auto-commit mode
 * (committed here when the pool hands out connections with auto-commit off; rolled back on any failure). The dialect
 * is detected on the first connection unless the {@link StoreConfig} forces one.
 *
 * <p>Thread-safety: thread-safe.
 */
final class LeaseJdbc {

    @FunctionalInterface
    interface Body<T> {
        T apply(LeaseSql sql, Connection connection) throws SQLException;
    }

    private final DataSource dataSource;
    private final StoreConfig config;
    private final Logger log;
    private volatile LeaseSql sql;
    /** The whole dialect, once known: the durability check needs more than the lease statements. */
    private volatile SqlDialect dialect;

    private final AtomicBoolean durabilityChecked = new AtomicBoolean();

    LeaseJdbc(DataSource dataSource, StoreConfig config, Logger log) {
        this.dataSource = dataSource;
        this.config = config;
        this.log = log;
        config.forcedDatabase().ifPresent(this::speak);
    }

    private LeaseSql speak(Database database) {
        SqlDialect spoken = Dialects.of(database, new Tables(config.tablePrefix()));
        dialect = spoken;
        LeaseSql speaking = spoken.leases();
        sql = speaking;
        return speaking;
    }

    /**
     * At the first call only: reads whether a failover can lose an acknowledged grant and logs a WARN (once per server
     * and user in this JVM) if it can, as a gate does for its marks ({@link DurabilityCheck}): a promoted standby that
     * lacks the last take gives its generation a second time. On a connection of its own; a failure to read it is
     * logged at INFO and never fails the caller.
     *
     * @param who the election or lock, for the INFO line
     */
    void checkDurabilityOnce(String who) {
        if (!durabilityChecked.compareAndSet(false, true)) {
            return;
        }
        try (Connection c = dataSource.getConnection()) {
            if (dialect == null) {
                speak(Dialects.detect(c));
            }
            boolean autoCommit = c.getAutoCommit();
            try {
                DurabilityCheck.read(c, dialect, DurabilityCheck.Subject.LEASE_GRANTS);
            } finally {
                if (!autoCommit) {
                    c.rollback(); // it only read
                }
            }
        } catch (SQLException | RuntimeException e) {
            log.info("{}: could not read whether a failover can lose lease grants: {}", who, e.getMessage());
        }
    }

    /**
     * Runs {@code body} on a connection of its own and commits it if the pool turned auto-commit off.
     *
     * @throws StoreException naming {@code operation}, the cause attached; a missing table says to install the schema
     */
    <T> T run(String operation, Body<T> body) {
        LeaseSql speaking = sql;
        try (Connection c = dataSource.getConnection()) {
            if (speaking == null) {
                speaking = speak(Dialects.detect(c));
            }
            boolean autoCommit = c.getAutoCommit();
            try {
                T result = body.apply(speaking, c);
                if (!autoCommit) {
                    c.commit();
                }
                return result;
            } catch (Throwable t) {
                if (!autoCommit) {
                    rollback(c, t);
                }
                throw t;
            }
        } catch (SQLException e) {
            if (speaking != null && speaking.undefinedTable(e)) {
                throw new StoreException(operation + " failed: table " + speaking.table() + " does not exist. Run"
                        + " FencedSchema.install (schema version 6 adds it), or apply FencedSchema.ddl with your"
                        + " migration tool (" + e.getMessage() + ")");
            }
            throw new StoreException(operation, e);
        }
    }

    private static void rollback(Connection c, Throwable failure) {
        try {
            c.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }
}
