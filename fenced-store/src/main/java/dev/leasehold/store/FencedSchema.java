package dev.leasehold.store;

import static java.util.stream.Stream.concat;

import dev.leasehold.store.internal.Jdbc;
import dev.leasehold.store.internal.SqlDialect;
import dev.leasehold.store.internal.StoreContext;
import javax.sql.DataSource;

/**
 * Creates the fenced store's tables if they do not exist: the fence marks ({@code leasehold_fence}), their re-base
 * audit ({@code leasehold_fence_rebase}), batches ({@code leasehold_batches}), slot runs
 * ({@code leasehold_slot_runs}) and the outbox ({@code leasehold_outbox}). Idempotent; concurrent installs on
 * PostgreSQL are serialized by an advisory lock.
 */
public final class FencedSchema {

    private FencedSchema() {}

    public static void install(DataSource ds) {
        install(ds, StoreConfig.defaults());
    }

    public static void install(DataSource ds, StoreConfig config) {
        StoreContext context = new StoreContext(ds, config);
        context.jdbc().inTransaction("installing the fenced store schema (prefix '" + config.tablePrefix() + "')",
                tx -> {
            SqlDialect sql = context.sql();
            for (String statement : sql.installLock()) {
                Jdbc.query(tx, statement, row -> null);
            }
            for (String statement : concat(sql.ddl().stream(), sql.outboxDdl().stream()).toList()) {
                Jdbc.update(tx, statement);
            }
            return null;
        });
    }
}
