package dev.leasehold.store.internal.mariadb;

import dev.leasehold.store.internal.Jdbc;
import dev.leasehold.store.internal.LeaseSql;
import dev.leasehold.store.internal.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The lease's take on MariaDB and MySQL, which have no RETURNING on UPDATE: the UPDATE stores the new generation in
 * the session's {@code LAST_INSERT_ID(expr)}, and {@code SELECT LAST_INSERT_ID()} on the same connection reads it
 * back. The value belongs to this session alone, so no other statement can change what is read, and the take stays
 * one conditional statement (the SELECT runs only after it changed 1 row). Immutable and thread-safe.
 */
public final class MariaDbLeaseSql extends LeaseSql {

    /** @param dialect this database's dialect */
    public MariaDbLeaseSql(SqlDialect dialect) {
        super(dialect);
    }

    @Override
    public OptionalLong take(Connection c, String name, String holder, long leaseMillis, int timeoutSeconds)
            throws SQLException {
        int count = update(c, timeoutSeconds, takeUpdate("LAST_INSERT_ID(generation + 1)"), holder, leaseMillis, name);
        if (!Jdbc.oneRow(count, "taking lease " + name)) {
            return OptionalLong.empty();
        }
        List<Long> generation =
                query(c, timeoutSeconds, "SELECT LAST_INSERT_ID() AS generation", row -> row.getLong("generation"));
        return generation(generation);
    }

    /**
     * The same UPDATE, then the row of the generation it stored in {@code LAST_INSERT_ID()}: its lease end. Empty also
     * if that row was taken again in between (its lease already over, so there is nothing to hold).
     */
    @Override
    public Optional<Taken> takeHold(Connection c, String name, String holder, long leaseMillis, int timeoutSeconds)
            throws SQLException {
        int count = update(c, timeoutSeconds, takeUpdate("LAST_INSERT_ID(generation + 1)"), holder, leaseMillis, name);
        if (!Jdbc.oneRow(count, "taking lease " + name)) {
            return Optional.empty();
        }
        return taken(query(
                c,
                timeoutSeconds,
                "SELECT generation, lease_until FROM " + table + " WHERE name = ? AND holder = ? AND generation ="
                        + " LAST_INSERT_ID()",
                LeaseSql::takenRow,
                name,
                holder));
    }
}
