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
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One election's statements on its lease row, each on a connection of its own, in auto-commit mode (committed here
 * when the pool hands out connections with auto-commit off; rolled back on any failure), with a query timeout of the
 * renew deadline (whole seconds, at least 1). The dialect is detected on the first connection unless the
 * {@link StoreConfig} forces one.
 *
 * <p>Thread-safety: thread-safe; {@link #take} is called from the election's loop thread only.
 */
final class LeaseRows {

    private static final Logger log = LoggerFactory.getLogger(LeaseElection.class);

    @FunctionalInterface
    interface Body<T> {
        T apply(LeaseSql sql, Connection connection) throws SQLException;
    }

    private final DataSource dataSource;
    private final StoreConfig config;
    private final String name;
    private final int timeoutSeconds;
    private volatile LeaseSql sql;
    /** The whole dialect, once known: the durability check needs more than the lease statements. */
    private volatile SqlDialect dialect;

    private final AtomicBoolean durabilityChecked = new AtomicBoolean();
    /** Whether the row exists (then a take is one UPDATE); the loop thread's only. */
    private boolean rowSeen;

    LeaseRows(DataSource dataSource, StoreConfig config, String name, LeaseTiming timing) {
        this.dataSource = dataSource;
        this.config = config;
        this.name = name;
        this.timeoutSeconds = (int) Math.max(1, (timing.renewDeadline().toMillis() + 999) / 1000);
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
     * logged at INFO and never fails the election.
     */
    private void checkDurabilityOnce() {
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
            log.info(
                    "lease election '{}': could not read whether a failover can lose lease grants: {}",
                    name,
                    e.getMessage());
        }
    }

    /**
     * Takes the lease if it ended: one UPDATE; the first time, if the row does not exist, one INSERT more.
     *
     * @return the new grant's generation, or empty if someone else holds it
     */
    OptionalLong take(String holder, long leaseMillis) {
        checkDurabilityOnce(); // at the election's first statement: a WARN if a failover can lose its grants
        return run("taking lease '" + name + "' for '" + holder + "'", (sql, c) -> {
            OptionalLong taken = sql.take(c, name, holder, leaseMillis, timeoutSeconds);
            if (taken.isPresent() || rowSeen) {
                rowSeen = true;
                return taken;
            }
            boolean created = sql.create(c, name, holder, leaseMillis, timeoutSeconds);
            rowSeen = true;
            return created ? OptionalLong.of(1) : OptionalLong.empty();
        });
    }

    /** @return whether the grant was still current and now runs for another lease duration */
    boolean renew(String holder, long token, long leaseMillis) {
        return run(
                "renewing lease '" + name + "' (holder '" + holder + "', token " + token + ")",
                (sql, c) -> sql.renew(c, name, holder, token, leaseMillis, timeoutSeconds));
    }

    /** @return whether the grant was still current and has now ended */
    boolean release(String holder, long token) {
        return run(
                "releasing lease '" + name + "' (holder '" + holder + "', token " + token + ")",
                (sql, c) -> sql.release(c, name, holder, token, timeoutSeconds));
    }

    Optional<LeaseHolder> read() {
        return run("reading lease '" + name + "'", (sql, c) -> sql.read(c, name, timeoutSeconds))
                .map(row -> new LeaseHolder(row.holder(), row.generation(), row.leaseUntil()));
    }

    private <T> T run(String operation, Body<T> body) {
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
