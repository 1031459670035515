package dev.leasehold.store.internal.postgres;

import dev.leasehold.store.internal.LeaseSql;
import dev.leasehold.store.internal.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The lease's take on PostgreSQL: one UPDATE with {@code RETURNING generation} (one round trip). Immutable and
 * thread-safe.
 */
public final class PostgresLeaseSql extends LeaseSql {

    /** @param dialect this database's dialect */
    public PostgresLeaseSql(SqlDialect dialect) {
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

    @Override
    public Optional<Taken> takeHold(Connection c, String name, String holder, long leaseMillis, int timeoutSeconds)
            throws SQLException {
        return taken(query(
                c,
                timeoutSeconds,
                takeUpdate("generation + 1") + " RETURNING generation, lease_until",
                LeaseSql::takenRow,
                holder,
                leaseMillis,
                name));
    }
}
