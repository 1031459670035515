package dev.leasehold.store.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The lease table's statements ({@code dev.leasehold.store.lease.LeaseElection} and {@code LeaseLock}), one conditional statement each,
 * judged by its update count (0 = lost or stale, 1 = done, more = a bug). Expiry is judged by the database's clock
 * only ({@link SqlDialect#now()}); the caller's clock never reaches SQL. Each runs on its own in auto-commit mode
 * (the caller commits when a pool hands out connections with auto-commit off), with a query timeout.
 *
 * <ul>
 *   <li>take: {@code generation + 1}, the caller as holder, {@code lease_until = now + lease}, only where the lease
 *       ended ({@code lease_until <= now}); the new generation (and for a lock, {@link #takeHold}, the lease's end)
 *       comes back in the same statement where the database can return it ({@link #take}: one subclass per
 *       database, in its package, handed out by {@link SqlDialect#leases()});</li>
 *   <li>create: the row of a name never used, with generation 1, held by the caller; a duplicate key is a lost
 *       race;</li>
 *   <li>renew: {@code lease_until = now + lease} where holder, generation and an unexpired lease all still match:
 *       a renew never revives an expired grant, so a generation names exactly one unbroken grant;</li>
 *   <li>release: {@code lease_until = now} under the same condition: the next take succeeds at once; a lock's
 *       release may keep the grant a while longer ({@link #releaseAfter}: {@code LEAST(lease_until, now + keep)}).</li>
 * </ul>
 * Generations grow by one with every take, whoever takes: across a change of holder and across a release and a
 * re-take by the same holder. Immutable and thread-safe.
 */
public abstract class LeaseSql {

    /** The lease row as read: who holds it, the generation of that grant, until when (database clock). */
    public record Row(String holder, long generation, Instant leaseUntil) {}

    /** A take as a lock sees it: the new generation and the end of its lease (database clock). */
    public record Taken(long generation, Instant leaseUntil) {}

    protected final SqlDialect dialect;
    protected final String table;

    /** @param dialect the database's dialect, whose clock and insert-if-absent the statements use */
    protected LeaseSql(SqlDialect dialect) {
        this.dialect = dialect;
        this.table = dialect.tables.leases();
    }

    /** The table, for messages. */
    public String table() {
        return table;
    }

    /** Whether {@code e} says the lease table does not exist (the schema is older than version 6). */
    public boolean undefinedTable(SQLException e) {
        return dialect.undefinedTable(e);
    }

    /** The take's UPDATE, without the part that returns the generation. Parameters: holder, lease millis, name. */
    protected final String takeUpdate(String generation) {
        return "UPDATE " + table + " SET holder = ?, lease_until = " + dialect.nowPlusMillis() + ", generation = "
                + generation + " WHERE name = ? AND lease_until <= " + dialect.now();
    }

    /**
     * Takes the lease of {@code name} for {@code holder} if it ended (or was released).
     *
     * @return the new generation, or empty if the lease is held (or the row does not exist yet)
     */
    public abstract OptionalLong take(Connection c, String name, String holder, long leaseMillis, int timeoutSeconds)
            throws SQLException;

    /**
     * Takes the lease of {@code name} for {@code holder} if it ended (or was released), as {@link #take} does, and
     * returns the end of the new lease with its generation ({@code dev.leasehold.store.lease.LeaseLock}).
     *
     * @return the new generation and the lease's end, or empty if the lease is held (or the row does not exist yet)
     */
    public abstract Optional<Taken> takeHold(
            Connection c, String name, String holder, long leaseMillis, int timeoutSeconds) throws SQLException;

    /**
     * The end of the grant {@code (holder, generation)} of {@code name}, whether or not it has passed, if nobody took
     * the row since: read back after a {@link #create}, whose INSERT cannot return it on every database. A ttl
     * shorter than the round trip may have ended by then; the grant was made all the same.
     */
    public final Optional<Instant> heldUntil(
            Connection c, String name, String holder, long generation, int timeoutSeconds) throws SQLException {
        return query(
                        c,
                        timeoutSeconds,
                        "SELECT lease_until FROM " + table + " WHERE name = ? AND holder = ? AND generation = ?",
                        row -> Jdbc.instant(row, "lease_until"),
                        name,
                        holder,
                        generation)
                .stream()
                .findFirst();
    }

    /** Creates the row of {@code name}, held by {@code holder} with generation 1; false if the row exists. */
    public final boolean create(Connection c, String name, String holder, long leaseMillis, int timeoutSeconds)
            throws SQLException {
        String insert = dialect.insertIfAbsent(
                "INSERT INTO " + table + " (name, holder, lease_until, generation) VALUES (?, ?, "
                        + dialect.nowPlusMillis() + ", 1)",
                "name");
        try {
            return Jdbc.oneRow(update(c, timeoutSeconds, insert, name, holder, leaseMillis), "creating lease " + name);
        } catch (SQLException e) {
            if (dialect.lostInsertRace(e)) {
                return false;
            }
            throw e;
        }
    }

    /** Extends the grant {@code (holder, generation)} of {@code name} to now + lease; false if it is not current. */
    public final boolean renew(
            Connection c, String name, String holder, long generation, long leaseMillis, int timeoutSeconds)
            throws SQLException {
        String renew = "UPDATE " + table + " SET lease_until = " + dialect.nowPlusMillis() + " WHERE " + current();
        return Jdbc.oneRow(
                update(c, timeoutSeconds, renew, leaseMillis, name, holder, generation), "renewing lease " + name);
    }

    /** Ends the grant {@code (holder, generation)} of {@code name} now; false if it was not current any more. */
    public final boolean release(Connection c, String name, String holder, long generation, int timeoutSeconds)
            throws SQLException {
        String release = "UPDATE " + table + " SET lease_until = " + dialect.now() + " WHERE " + current();
        return Jdbc.oneRow(update(c, timeoutSeconds, release, name, holder, generation), "releasing lease " + name);
    }

    /**
     * Ends the grant {@code (holder, generation)} of {@code name} at {@code now + keepMillis}, or at its current end if
     * that is sooner (a release never lengthens a grant); false if it was not current any more.
     */
    public final boolean releaseAfter(
            Connection c, String name, String holder, long generation, long keepMillis, int timeoutSeconds)
            throws SQLException {
        String release = "UPDATE " + table + " SET lease_until = LEAST(lease_until, " + dialect.nowPlusMillis()
                + ") WHERE " + current();
        return Jdbc.oneRow(
                update(c, timeoutSeconds, release, keepMillis, name, holder, generation), "releasing lease " + name);
    }

    /** The unexpired grant of {@code name}, if any. */
    public final Optional<Row> read(Connection c, String name, int timeoutSeconds) throws SQLException {
        List<Row> rows = query(
                c,
                timeoutSeconds,
                "SELECT holder, generation, lease_until FROM " + table + " WHERE name = ? AND lease_until > "
                        + dialect.now(),
                row -> new Row(row.getString("holder"), row.getLong("generation"), Jdbc.instant(row, "lease_until")),
                name);
        return rows.stream().findFirst();
    }

    /** The grant's condition; parameters: name, holder, generation. */
    private String current() {
        return "name = ? AND holder = ? AND generation = ? AND lease_until > " + dialect.now();
    }

    /** Runs an INSERT or UPDATE with a query timeout; returns its update count. */
    protected static int update(Connection c, int timeoutSeconds, String sql, Object... params) throws SQLException {
        try (PreparedStatement statement = c.prepareStatement(sql)) {
            statement.setQueryTimeout(timeoutSeconds);
            bind(statement, params);
            return statement.executeUpdate();
        }
    }

    /** Runs a query with a query timeout. */
    protected static <T> List<T> query(Connection c, int timeoutSeconds, String sql, Jdbc.Row<T> row, Object... params)
            throws SQLException {
        try (PreparedStatement statement = c.prepareStatement(sql)) {
            statement.setQueryTimeout(timeoutSeconds);
            bind(statement, params);
            List<T> rows = new ArrayList<>();
            try (ResultSet results = statement.executeQuery()) {
                while (results.next()) {
                    rows.add(row.map(results));
                }
            }
            return rows;
        }
    }

    private static void bind(PreparedStatement statement, Object[] params) throws SQLException {
        for (int i = 0; i < params.length; i++) {
            if (params[i] instanceof Long value) {
                statement.setLong(i + 1, value);
            } else {
                statement.setString(i + 1, (String) params[i]);
            }
        }
    }

    /** Exactly one take from a take that changed {@code count} rows. */
    protected static Optional<Taken> taken(List<Taken> taken) {
        if (taken.size() > 1) {
            throw new IllegalStateException("a lease take changed " + taken.size() + " rows, expected 0 or 1: a bug");
        }
        return taken.stream().findFirst();
    }

    /** A take's generation and lease end, from a row of its result. */
    protected static Taken takenRow(ResultSet row) throws SQLException {
        return new Taken(row.getLong("generation"), Jdbc.instant(row, "lease_until"));
    }

    /** Exactly one generation from a take that changed {@code count} rows. */
    protected static OptionalLong generation(List<Long> generations) {
        if (generations.size() > 1) {
            throw new IllegalStateException(
                    "a lease take changed " + generations.size() + " rows, expected 0 or 1: a bug");
        }
        return generations.isEmpty() ? OptionalLong.empty() : OptionalLong.of(generations.get(0));
    }
}
