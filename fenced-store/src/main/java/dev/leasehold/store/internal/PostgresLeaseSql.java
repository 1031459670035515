package dev.leasehold.store.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.OptionalLong;

/**
 * The lease's take on PostgreSQL: one UPDATE with {@code RETURNING generation} (one round trip). Immutable and
 * thread-safe.
 */
final class PostgresLeaseSql extends LeaseSql {

    PostgresLeaseSql(SqlDialect dialect) {
        super(dialect);
    }

    @Override
    public OptionalLong take(Connection c, String name, String holder, long leaseMillis, int timeoutSeconds)
            throws SQLException {
        return generation(query(
                c,
                timeoutSeconds,
                takeUpdate("generation + 1") + " RETURNING generation",
                row -> row.getLong("generation"),
                holder,
                leaseMillis,
                name));
    }
}
