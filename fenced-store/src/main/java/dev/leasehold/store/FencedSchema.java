package dev.leasehold.store;

import dev.leasehold.store.internal.Jdbc;
import dev.leasehold.store.internal.SqlDialect;
import dev.leasehold.store.internal.StoreContext;
import javax.sql.DataSource;

/**
 * Creates the fenced store's tables if they do not exist: the fence marks ({@code leasehold_fence}), their re-base
 * audit ({@code leasehold_fence_rebase}), batches ({@code leasehold_batches}) and slot runs
 * ({@code leasehold_slot_runs}). Idempotent; concurrent installs on PostgreSQL are serialized by an advisory lock.
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
            for (String statement : sql.ddl()) {
                Jdbc.update(tx, statement);
            }
            return null;
        });
    }
}
