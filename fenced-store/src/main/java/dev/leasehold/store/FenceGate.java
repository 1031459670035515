package dev.leasehold.store;

import dev.leasehold.store.internal.Args;
import dev.leasehold.store.internal.Jdbc;
import dev.leasehold.store.internal.SqlDialect;
import dev.leasehold.store.internal.StoreContext;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fence in front of a resource: a write is kept only if its token is at least the highest token the resource
 * has seen, checked in the same transaction as the write.
 *
 * <p>One transaction per write:
 * <ol>
 *   <li>{@code UPDATE fence SET token = :t WHERE resource = :r AND token <= :t}: one row means the token is
 *       current (equal tokens pass: the same leader writes many times) and the row is now locked until commit;</li>
 *   <li>on first use of a resource, its row is inserted race-free (insert-if-absent, then the update again);</li>
 *   <li>the caller's work runs on the same connection;</li>
 *   <li>commit. A lower token rolls everything back and throws {@link StaleTokenException}; an exception from the
 *       work rolls everything back and is rethrown.</li>
 * </ol>
 * A stale writer that waited on the row lock behind a newer writer is rejected once the newer one commits: both
 * PostgreSQL (READ COMMITTED re-checks the WHERE on the new row version) and H2 re-evaluate the condition after
 * the wait (tested on both). Under REPEATABLE READ or SERIALIZABLE, PostgreSQL reports that race as a
 * serialization failure instead ({@link StoreException}, SQLState 40001): nothing is written either way.
 *
 * <p>Cost over the same work in a plain transaction: one UPDATE by primary key (plus one INSERT on a resource's
 * first use), in the same round trips as the work.
 *
 * <p>"Fence first": a new leader should call {@link #advance} with its token before it reads state or acts, so the
 * old leader cannot commit between the new leader's read and its first write.
 */
public final class FenceGate {

    private static final Logger log = LoggerFactory.getLogger(FenceGate.class);

    private final StoreContext context;

    public FenceGate(DataSource ds) {
        this(ds, StoreConfig.defaults());
    }

    public FenceGate(DataSource ds, StoreConfig config) {
        this.context = new StoreContext(ds, config);
    }

    /**
     * Runs {@code work} in one transaction with the token check.
     *
     * @throws StaleTokenException if {@code token} is lower than the highest seen for {@code resource}
     * @throws StoreException      if the database or the work failed with an SQLException (rolled back)
     */
    public void write(String resource, long token, FencedWork work) {
        Args.notNull(work, "work");
        call(resource, token, tx -> {
            work.run(tx);
            return null;
        });
    }

    /** Like {@link #write}, returning what {@code work} returns. */
    public <T> T call(String resource, long token, FencedCall<T> work) {
        Args.name(resource, "resource");
        Args.token(token, "token");
        Args.notNull(work, "work");
        return context.jdbc().inTransaction("fenced write to '" + resource + "' with token " + token, tx -> {
            pass(tx, resource, token);
            return work.call(tx);
        });
    }

    /**
     * Raises the resource's mark to {@code token} with no other work ("fence first" on gaining leadership).
     *
     * @throws StaleTokenException if a higher token was already seen
     */
    public void advance(String resource, long token) {
        Args.name(resource, "resource");
        Args.token(token, "token");
        context.jdbc().inTransaction("advancing the fence of '" + resource + "' to " + token, tx -> {
            pass(tx, resource, token);
            return null;
        });
    }

    /** The highest token the resource has accepted, or empty if it has never seen one. */
    public OptionalLong highestToken(String resource) {
        Args.name(resource, "resource");
        return context.jdbc().withConnection("reading the fence of '" + resource + "'", connection -> {
            List<Long> tokens = selectToken(connection, resource);
            return tokens.isEmpty() ? OptionalLong.empty() : OptionalLong.of(tokens.get(0));
        });
    }

    /**
     * IMPORTANT: an operator's procedure, never automatic. Sets the resource's mark to {@code newToken} even if it
     * is lower, after the token source was rebuilt (a wiped or new ZooKeeper ensemble restarts its czxids low, and a
     * fenced resource would refuse every new leader). Make sure no old leader can still write first. Logged at WARN
     * and recorded with who did it and why, in the same transaction.
     *
     * @return the mark before the re-base, if there was one
     */
    public OptionalLong rebase(String resource, long newToken, String operator, String reason) {
        Args.name(resource, "resource");
        Args.token(newToken, "newToken");
        Args.name(operator, "operator");
        Args.notNull(reason, "reason");
        if (reason.isBlank() || reason.length() > 1000) {
            throw new IllegalArgumentException("reason must be 1 to 1000 non-blank characters, was '" + reason + "'");
        }
        OptionalLong old = context.jdbc().inTransaction("re-basing the fence of '" + resource + "'", tx -> {
            SqlDialect sql = context.sql();
            List<Long> before = Jdbc.query(tx, "SELECT token FROM " + sql.tables.fence()
                    + " WHERE resource = ? FOR UPDATE", row -> row.getLong(1), resource);
            String set = "UPDATE " + sql.tables.fence() + " SET token = ?, updated_at = " + sql.now()
                    + " WHERE resource = ?";
            if (!Jdbc.oneRow(Jdbc.update(tx, set, newToken, resource), "rebase")
                    && !insertMark(tx, resource, newToken)
                    && !Jdbc.oneRow(Jdbc.update(tx, set, newToken, resource), "rebase")) {
                throw new IllegalStateException("the fence row of '" + resource + "' could be neither inserted nor"
                        + " updated: a bug");
            }
            Jdbc.update(tx, "INSERT INTO " + sql.tables.fenceRebase()
                    + " (resource, old_token, new_token, operator, reason, rebased_at) VALUES (?, "
                    + (before.isEmpty() ? "NULL" : "?") + ", ?, ?, ?, " + sql.now() + ")",
                    before.isEmpty() ? new Object[] {resource, newToken, operator, reason}
                            : new Object[] {resource, before.get(0), newToken, operator, reason});
            return before.isEmpty() ? OptionalLong.empty() : OptionalLong.of(before.get(0));
        });
        log.warn("fence of resource '{}' RE-BASED from {} to {} by '{}': {}", resource,
                old.isPresent() ? old.getAsLong() : "nothing", newToken, operator, reason);
        return old;
    }

    /** The check: returns if the token passes (the mark now equals it and is locked), throws if stale. */
    private void pass(Connection tx, String resource, long token) throws SQLException {
        if (raise(tx, resource, token)) {
            return;
        }
        if (insertMark(tx, resource, token) || raise(tx, resource, token)) {
            return; // first use, or another writer created the row first and ours is still current
        }
        List<Long> highest = selectToken(tx, resource);
        throw new StaleTokenException(resource, token, highest.isEmpty() ? -1 : highest.get(0));
    }

    private boolean raise(Connection tx, String resource, long token) throws SQLException {
        SqlDialect sql = context.sql();
        return Jdbc.oneRow(Jdbc.update(tx, "UPDATE " + sql.tables.fence() + " SET token = ?, updated_at = "
                + sql.now() + " WHERE resource = ? AND token <= ?", token, resource, token), "fence update");
    }

    private boolean insertMark(Connection tx, String resource, long token) throws SQLException {
        SqlDialect sql = context.sql();
        try {
            return Jdbc.oneRow(Jdbc.update(tx, sql.insertIfAbsent("INSERT INTO " + sql.tables.fence()
                    + " (resource, token, updated_at) VALUES (?, ?, " + sql.now() + ")", "resource"),
                    resource, token), "fence insert");
        } catch (SQLException e) {
            if (sql.lostInsertRace(e)) {
                return false;
            }
            throw e;
        }
    }

    private List<Long> selectToken(Connection connection, String resource) throws SQLException {
        return Jdbc.query(connection, "SELECT token FROM " + context.sql().tables.fence() + " WHERE resource = ?",
                row -> row.getLong(1), resource);
    }
}
