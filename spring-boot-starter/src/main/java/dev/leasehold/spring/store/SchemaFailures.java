package dev.leasehold.spring.store;

import dev.leasehold.spring.LeaseholdConfigurationException;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.StoreException;
import java.sql.SQLException;
import java.util.Locale;

/**
 * Turns the store's schema failures at start into one message with the fix: a role that may not create tables
 * (PostgreSQL 15+ grants no CREATE on {@code public}) is told of {@code leasehold.store.install-schema=false} and where
 * the DDL is; with {@code install-schema=false}, a missing table or grant fails the start by its name.
 *
 * <p>Thread-safety: stateless.
 */
final class SchemaFailures {

    /** Where a DBA gets the DDL. */
    static final String DDL = "the DDL is in docs/schema/postgresql.sql, mariadb.sql and h2.sql, printed by `java -jar"
            + " leasehold-scenarios.jar schema --ddl --dialect postgresql|mariadb|h2 [--prefix P]`, and returned by"
            + " FencedSchema.ddl(database, config)";

    private SchemaFailures() {}

    /** An install that failed: a permission error gets the install-schema=false advice; anything else is left as is. */
    static RuntimeException install(StoreException e, StoreConfig config) {
        if (!refusedForRights(e)) {
            return e;
        }
        return new LeaseholdConfigurationException(
                "The fenced store schema (prefix '" + config.tablePrefix() + "') could not be installed at start: the"
                        + " database refused it for the application's rights (" + rootMessage(e) + "). PostgreSQL 15"
                        + " and later grant no CREATE on schema public.",
                "Have a DBA apply the DDL once (" + DDL + ") and grant the application's role SELECT, INSERT, UPDATE"
                        + " and DELETE on those tables, then set leasehold.store.install-schema=false: the start then"
                        + " verifies the schema instead. Or grant the role the right to create tables.",
                e);
    }

    /** A verify (install-schema=false) that failed: names the missing table, version or grant. */
    static RuntimeException verify(StoreException e, StoreConfig config) {
        return new LeaseholdConfigurationException(
                "leasehold.store.install-schema=false, and the fenced store schema (prefix '" + config.tablePrefix()
                        + "') cannot be used by the application's role: " + e.getMessage(),
                "Apply the DDL (" + DDL + ") and grant the application's role SELECT, INSERT, UPDATE and DELETE on"
                        + " those tables; or remove leasehold.store.install-schema=false if the role may create"
                        + " tables (the start then installs them).",
                e);
    }

    /** Whether the database refused a statement for want of a right, on any of the databases the store speaks. */
    static boolean refusedForRights(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                String state = sql.getSQLState() == null ? "" : sql.getSQLState();
                int code = sql.getErrorCode();
                String message =
                        sql.getMessage() == null ? "" : sql.getMessage().toLowerCase(Locale.ROOT);
                if (state.equals("42501") // PostgreSQL: insufficient_privilege
                        || code == 1142 // MariaDB: command denied to user for table
                        || code == 1044 // MariaDB: access denied for user to database
                        || code == 90096 // H2: not enough rights
                        || message.contains("permission denied")) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String rootMessage(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage();
    }
}
