package dev.leasehold.store.internal;

import dev.leasehold.store.Database;
import dev.leasehold.store.StoreConfig;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every store class shares: the JDBC helper and the dialect, detected on first use and then kept. Thread-safe:
 * the dialect is published through volatile fields, and detecting it twice in a race gives the same answer.
 */
public final class StoreContext {

    private static final Logger log = LoggerFactory.getLogger(StoreContext.class);
    private static final Set<String> logged = ConcurrentHashMap.newKeySet();

    private final StoreConfig config;
    private final Jdbc jdbc;
    private final StoreEvents events;
    private volatile SqlDialect dialect;
    private volatile TxDialect tx;
    private final AtomicBoolean durabilityChecked = new AtomicBoolean();

    public StoreContext(DataSource dataSource, StoreConfig config) {
        Args.notNull(dataSource, "dataSource");
        this.config = Args.notNull(config, "config");
        this.jdbc = new Jdbc(dataSource, this::detectOn, this::tx);
        this.events = new StoreEvents(config.listener());
        config.forcedDatabase().ifPresent(this::speak);
    }

    private void speak(Database database) {
        SqlDialect spoken = Dialects.of(database, new Tables(config.tablePrefix()));
        tx = spoken.tx(
                config.lockTimeout().toMillis(),
                config.idleInTransactionTimeout().toMillis());
        dialect = spoken;
    }

    /** The transaction settings, if the dialect is known yet (forced, or detected on an earlier connection). */
    public Optional<TxDialect> knownTx() {
        return Optional.ofNullable(tx);
    }

    /** The transaction settings of the dialect; known once any connection was opened through {@link #jdbc()}. */
    public TxDialect tx() {
        TxDialect current = tx;
        if (current == null) {
            throw new IllegalStateException("the dialect is detected on the first connection; use tx() inside jdbc()");
        }
        return current;
    }

    /** The listener of {@link StoreConfig#listener()}, behind a guard that logs whatever it throws. */
    public StoreEvents events() {
        return events;
    }

    public Jdbc jdbc() {
        return jdbc;
    }

    /** The dialect; known once any connection was opened through {@link #jdbc()}. */
    public SqlDialect sql() {
        SqlDialect current = dialect;
        if (current == null) {
            throw new IllegalStateException("the dialect is detected on the first connection; use sql() inside jdbc()");
        }
        return current;
    }

    /**
     * Whether {@code e} is a lock timeout that a SKIP LOCKED claim met on no claimer's row ({@link
     * SqlDialect#skipLockedWait}): every claim passes this to {@link Jdbc}, which makes the claim again, a bounded
     * number of times, before the caller sees it.
     */
    public boolean skipLockedWait(SQLException e) {
        return sql().skipLockedWait(e);
    }

    /**
     * The dialect, detected on {@code connection} if no connection told it yet: for SQL run on a connection that
     * another store object opened (the outbox's record inside a gate's transaction), where a second connection could
     * exhaust a pool of one.
     */
    public SqlDialect sqlOn(Connection connection) throws SQLException {
        detectOn(connection);
        return sql();
    }

    /**
     * At the first call only: reads whether a failover can lose acknowledged marks and logs a WARN (once per server
     * and user in this JVM) if it can ({@link DurabilityCheck}). On a connection of its own, before the caller's
     * transaction, so a pool of one suffices; a failure to read it is logged at INFO and never fails the caller.
     */
    public void checkDurabilityOnce() {
        if (!durabilityChecked.compareAndSet(false, true)) {
            return;
        }
        try {
            jdbc.withConnection(
                    "checking whether a failover can lose fence marks", c -> DurabilityCheck.read(c, sql()));
        } catch (RuntimeException e) {
            log.info("fenced store: could not read whether a failover can lose fence marks: {}", e.getMessage());
        }
    }

    /** Detects the dialect from the connection in hand (never a second connection: a pool of one must suffice). */
    private void detectOn(Connection connection) throws SQLException {
        if (dialect != null) {
            return;
        }
        DatabaseMetaData meta = connection.getMetaData();
        String product = meta.getDatabaseProductName();
        Database database = Dialects.detect(connection);
        if (logged.add(product + " " + meta.getDatabaseProductVersion())) {
            log.info(
                    "fenced store: {} {} detected, speaking the {} dialect",
                    product,
                    meta.getDatabaseProductVersion(),
                    database);
        }
        speak(database);
    }
}
