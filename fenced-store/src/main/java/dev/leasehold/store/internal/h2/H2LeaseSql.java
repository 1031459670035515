package dev.leasehold.store.internal.h2;

import dev.leasehold.store.internal.LeaseSql;
import dev.leasehold.store.internal.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The lease's take on H2: the UPDATE inside {@code SELECT generation FROM FINAL TABLE (...)}, H2's form of
 * RETURNING (one statement). Immutable and thread-safe.
 */
public final class H2LeaseSql extends LeaseSql {

    /** @param dialect this database's dialect */
    public H2LeaseSql(SqlDialect dialect) {
        super(dialect);
    }

    @Override
    public OptionalLong take(Connection c, String name, String holder, long leaseMillis, int timeoutSeconds)
            throws SQLException {
        return generation(query(
                c,
                timeoutSeconds,
                "SELECT generation FROM FINAL TABLE (" + takeUpdate("generation + 1") + ")",
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
                "SELECT generation, lease_until FROM FINAL TABLE (" + takeUpdate("generation + 1") + ")",
                LeaseSql::takenRow,
                holder,
                leaseMillis,
                name));
    }
}
