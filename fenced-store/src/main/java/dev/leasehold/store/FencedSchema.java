package dev.leasehold.store;

import dev.leasehold.store.internal.Args;
import dev.leasehold.store.internal.Dialects;
import dev.leasehold.store.internal.DurabilityCheck;
import dev.leasehold.store.internal.Jdbc;
import dev.leasehold.store.internal.Migration;
import dev.leasehold.store.internal.SqlDialect;
import dev.leasehold.store.internal.StoreContext;
import dev.leasehold.store.internal.Tables;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;

/**
 * The fenced store's tables, versioned: the fence marks ({@code leasehold_fence}), their re-base audit
 * ({@code leasehold_fence_rebase}), their history ({@code leasehold_fence_history}), batches ({@code leasehold_batches}), slot runs ({@code leasehold_slot_runs}),
 * the outbox ({@code leasehold_outbox}), and {@code leasehold_schema_version}, one row per applied migration. Stateless and thread-safe.
 *
 * <p>Three ways to use it:
 * <ul>
 *   <li>{@link #install}: reads the installed version first and, when the schema is current, creates nothing (so an
 *       application role with DML rights only can call it on a schema a DBA installed); otherwise applies the
 *       migrations the database does not have yet, in order, and records each, which needs DDL rights. Idempotent; concurrent installs on PostgreSQL are serialized by an advisory lock (on H2,
 *       within one JVM). A database
 *       created before schema versions existed (version 0: the tables, no version table) is upgraded in place.</li>
 *   <li>{@link #ddl}: the statements of the current version, version rows included, for Flyway, Liquibase or a DBA.
 *       Apply them once to an empty schema (or compare them with what {@link #install} would run).</li>
 *   <li>{@link #verify}: at start-up, with the application's own (DML-only) rights: checks that the schema is at
 *       exactly the version this release needs and that every table and column it uses can be read; otherwise a
 *       {@link StoreException} with one message that says what is wrong and what to do; and returns {@link
 *       #durability}.</li>
 * </ul>
 *
 * <p>{@link #durability}: whether the database can lose an acknowledged fence mark when it fails over (a primary
 * with asynchronous standbys, {@code synchronous_commit} off or local). The fence's durability is the database's.
 */
public final class FencedSchema {

    /**
     * Installs from this JVM one at a time. On PostgreSQL the advisory lock serializes installs across processes
     * too; H2 has no such lock, and its DDL is not transactional, so concurrent installs there are safe only within
     * one JVM (H2 in memory or embedded, the way it is used).
     */
    private static final ReentrantLock INSTALLING = new ReentrantLock();

    private FencedSchema() {}

    /** @return the schema version this release reads and writes */
    public static int currentVersion() {
        List<Migration> migrations =
                Dialects.of(Database.H2, new Tables(StoreConfig.DEFAULT_PREFIX)).migrations();
        return migrations.get(migrations.size() - 1).version();
    }

    /**
     * Brings the schema to {@link #currentVersion()}, with {@link StoreConfig#defaults()}.
     *
     * @param ds where to install it, with the rights to create tables
     * @throws StoreException as for {@link #install(DataSource, StoreConfig)}
     */
    public static void install(DataSource ds) {
        install(ds, StoreConfig.defaults());
    }

    /**
     * Brings the schema to {@link #currentVersion()}. Reads the installed version first (one query, no lock, no DDL):
     * when it is current there is nothing to do, and nothing is created, so DML rights are enough; otherwise the
     * missing migrations are applied, which needs the rights to create tables.
     *
     * @param ds     where to install it: with the rights to create tables, unless the schema is current
     * @param config the table prefix (and a forced dialect, if any)
     * @throws StoreException if the schema is newer than this release knows, or the database refused a statement
     */
    public static void install(DataSource ds, StoreConfig config) {
        Args.notNull(ds, "dataSource");
        Args.notNull(config, "config");
        StoreContext context = new StoreContext(ds, config);
        if (isCurrent(context, config)) {
            return;
        }
        INSTALLING.lock();
        try {
            installLocked(context, config);
        } finally {
            INSTALLING.unlock();
        }
    }

    /**
     * Whether the schema is at {@link #currentVersion()}, read without DDL; {@code false} when the version table is
     * missing or cannot be read (the install then says what the database refused).
     *
     * @throws StoreException if the schema is newer than this release knows
     */
    private static boolean isCurrent(StoreContext context, StoreConfig config) {
        int installed;
        try {
            installed = context.jdbc()
                    .withConnection(
                            "reading the fenced store schema's version (prefix '" + config.tablePrefix() + "')",
                            connection -> installedVersion(connection, context.sql()));
        } catch (StoreException e) {
            return false; // no version table, or no right to read it: the install says what the database refuses
        }
        refuseNewer(installed, config);
        return installed == currentVersion();
    }

    private static void installLocked(StoreContext context, StoreConfig config) {
        context.jdbc()
                .inTransaction("installing the fenced store schema (prefix '" + config.tablePrefix() + "')", tx -> {
                    SqlDialect sql = context.sql();
                    for (String statement : sql.installLock()) {
                        Jdbc.query(tx, statement, row -> null);
                    }
                    Jdbc.update(tx, sql.versionTable());
                    int installed = installedVersion(tx, sql);
                    refuseNewer(installed, config);
                    for (Migration migration : sql.migrations()) {
                        if (migration.version() > installed) {
                            for (String statement : migration.statements()) {
                                Jdbc.update(tx, statement);
                            }
                            record(tx, sql, migration);
                        }
                    }
                    return null;
                });
    }

    /**
     * The statements that create the schema at {@link #currentVersion()} on {@code database}, with the table prefix
     * of {@code config}, ending with the rows of the version table. Run them in order, once.
     *
     * @param database the database the statements are for
     * @param config   the table prefix (a forced dialect must match {@code database})
     * @return the statements, in order
     */
    public static List<String> ddl(Database database, StoreConfig config) {
        Args.notNull(database, "database");
        Args.notNull(config, "config");
        config.forcedDatabase().filter(forced -> forced != database).ifPresent(forced -> {
            throw new IllegalArgumentException("config speaks " + forced + " but the DDL was asked for " + database);
        });
        SqlDialect sql = Dialects.of(database, new Tables(config.tablePrefix()));
        List<String> statements = new ArrayList<>();
        statements.add(sql.versionTable());
        for (Migration migration : sql.migrations()) {
            statements.addAll(migration.statements());
            statements.add("INSERT INTO " + sql.tables.schemaVersion() + " (version, description, installed_at)"
                    + " VALUES (" + migration.version() + ", '"
                    + migration.description().replace("'", "''") + "', "
                    + sql.now() + ")");
        }
        return List.copyOf(statements);
    }

    /**
     * Checks the schema, with {@link StoreConfig#defaults()}.
     *
     * @param ds the data source the store will use
     * @return what {@link #durability(DataSource)} says
     * @throws StoreException as for {@link #verify(DataSource, StoreConfig)}
     */
    public static FailoverDurability verify(DataSource ds) {
        return verify(ds, StoreConfig.defaults());
    }

    /**
     * Whether the database behind {@code ds} can lose an acknowledged fence mark when it fails over, with {@link
     * StoreConfig#defaults()}.
     *
     * @param ds the data source the store will use
     * @return what the connected server reports
     * @throws StoreException as for {@link #durability(DataSource, StoreConfig)}
     */
    public static FailoverDurability durability(DataSource ds) {
        return durability(ds, StoreConfig.defaults());
    }

    /**
     * Whether the database behind {@code ds} can lose an acknowledged fence mark when it fails over: the fence's
     * durability is the database's. One read-only query with {@code ds}'s rights (PostgreSQL: {@code
     * synchronous_commit}, {@code synchronous_standby_names}, {@code pg_stat_replication}; MariaDB and MySQL: the
     * semi-synchronous replication variables and status); H2 is {@link FailoverDurability.Replication#NOT_APPLICABLE}.
     * Call it at start and refuse to run, or alert, when it is {@link FailoverDurability#atRisk()}. It sees only what
     * the connected server reports (see {@link FailoverDurability}). Logs a WARN once per server in this JVM when at
     * risk, as a gate's first write does.
     *
     * @param ds     the data source the store will use (the same role: a setting of the role counts)
     * @param config a forced dialect, if any
     * @return what the connected server reports
     * @throws StoreException if the database could not be read
     */
    public static FailoverDurability durability(DataSource ds, StoreConfig config) {
        Args.notNull(ds, "dataSource");
        Args.notNull(config, "config");
        StoreContext context = new StoreContext(ds, config);
        return context.jdbc()
                .withConnection(
                        "reading whether a failover can lose fence marks",
                        connection -> DurabilityCheck.read(connection, context.sql()));
    }

    /**
     * Checks, reading only, that the schema is at {@link #currentVersion()} and that every table and column the
     * store uses can be read with {@code ds}'s rights.
     *
     * Then reads {@link #durability(DataSource, StoreConfig)} on the same connection and returns it (a WARN once per
     * server in this JVM if a failover can lose acknowledged marks; verify does not fail for it).
     *
     * @param ds     the data source the store will use
     * @param config the table prefix (and a forced dialect, if any)
     * @return whether a failover can lose acknowledged fence marks, as the connected server reports
     * @throws StoreException naming what is missing or which version was found, and what to do about it
     */
    public static FailoverDurability verify(DataSource ds, StoreConfig config) {
        Args.notNull(ds, "dataSource");
        Args.notNull(config, "config");
        StoreContext context = new StoreContext(ds, config);
        String where = "the fenced store schema (prefix '" + config.tablePrefix() + "')";
        return context.jdbc().withConnection("verifying " + where, connection -> {
            SqlDialect sql = context.sql();
            int installed;
            try {
                installed = installedVersion(connection, sql);
            } catch (SQLException e) {
                if (sql.undefinedTable(e)) {
                    throw new StoreException(where + " is not installed: table " + sql.tables.schemaVersion()
                            + " does not exist. Run FencedSchema.install (it needs DDL rights; it also upgrades tables"
                            + " created before schema versions), or apply FencedSchema.ddl(" + sql.database()
                            + ", config) with your migration tool. This release needs version " + currentVersion()
                            + ".");
                }
                throw e;
            }
            refuseNewer(installed, config);
            if (installed < currentVersion()) {
                throw new StoreException(where + " is at version " + installed + "; this release needs version "
                        + currentVersion() + ". Run FencedSchema.install, or apply the missing migrations ("
                        + (installed + 1) + " to " + currentVersion() + ") from FencedSchema.ddl(" + sql.database()
                        + ", config).");
            }
            for (Map.Entry<String, String> table : sql.columnsInUse().entrySet()) {
                try {
                    Jdbc.query(
                            connection,
                            "SELECT " + table.getValue() + " FROM " + table.getKey() + " WHERE 1 = 0",
                            row -> null);
                } catch (SQLException e) {
                    throw new StoreException(where + " is recorded as version " + installed + ", but table "
                            + table.getKey() + " cannot be read as it needs to be (" + e.getMessage() + ", SQLState "
                            + e.getSQLState() + "). Was a migration changed by hand, or is SELECT not granted?");
                }
            }
            return DurabilityCheck.read(connection, sql);
        });
    }

    private static int installedVersion(Connection connection, SqlDialect sql) throws SQLException {
        return Jdbc.query(
                        connection,
                        "SELECT COALESCE(MAX(version), 0) AS v FROM " + sql.tables.schemaVersion(),
                        row -> row.getInt("v"))
                .get(0);
    }

    private static void refuseNewer(int installed, StoreConfig config) {
        if (installed > currentVersion()) {
            throw new StoreException("the fenced store schema (prefix '" + config.tablePrefix() + "') is at version "
                    + installed + ", newer than this release of Leasehold knows (" + currentVersion()
                    + "): run a release that knows version " + installed + ".");
        }
    }

    private static void record(Connection tx, SqlDialect sql, Migration migration) throws SQLException {
        String insert = sql.insertIfAbsent(sql.recordVersion(), "version");
        try {
            Jdbc.update(tx, insert, (long) migration.version(), migration.description());
        } catch (SQLException e) {
            if (!sql.lostInsertRace(e)) {
                throw e; // else: a concurrent install (H2 has no install lock) recorded it first
            }
        }
    }
}
