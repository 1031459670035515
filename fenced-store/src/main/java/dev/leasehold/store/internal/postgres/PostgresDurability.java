package dev.leasehold.store.internal.postgres;

import dev.leasehold.store.FailoverDurability;
import dev.leasehold.store.FailoverDurability.Replication;
import dev.leasehold.store.internal.Jdbc;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/**
 * Whether the connected PostgreSQL can lose an acknowledged commit on failover, from one query that any role may run:
 * {@code synchronous_commit} and {@code synchronous_standby_names} as this session sees them (a role's or database's
 * own setting included), {@code pg_is_in_recovery()}, and the walsenders of {@code pg_stat_replication} (a role
 * without {@code pg_read_all_stats} sees their rows but not their {@code sync_state}; then the names decide).
 * Walsenders of a base backup (state {@code backup}, or pg_basebackup's own WAL stream) are left out. Stateless and thread-safe.
 */
final class PostgresDurability {

    private PostgresDurability() {}

    private static final String QUERY = "SELECT pg_is_in_recovery() AS in_recovery,"
            + " current_setting('synchronous_commit') AS synchronous_commit,"
            + " current_setting('synchronous_standby_names') AS standby_names,"
            + " (SELECT count(*) FROM pg_stat_replication WHERE state IS DISTINCT FROM 'backup'"
            + " AND application_name IS DISTINCT FROM 'pg_basebackup') AS standbys,"
            + " (SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum')) AS sync_standbys,"
            + " (SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('async', 'potential')"
            + " AND application_name IS DISTINCT FROM 'pg_basebackup') AS async_standbys";

    private static final String MAKE_SYNCHRONOUS = "make replication synchronous: with Patroni set synchronous_mode:"
            + " true and synchronous_mode_strict: true; without it set synchronous_standby_names (e.g. 'ANY 1 (*)'),"
            + " and keep synchronous_commit = on or remote_apply; then fail over only to a synchronous standby";

    private record Seen(
            boolean inRecovery,
            String synchronousCommit,
            String standbyNames,
            long standbys,
            long syncStandbys,
            long asyncStandbys) {}

    static FailoverDurability of(Connection connection) throws SQLException {
        Seen seen = Jdbc.query(
                        connection,
                        QUERY,
                        row -> new Seen(
                                row.getBoolean("in_recovery"),
                                row.getString("synchronous_commit").toLowerCase(Locale.ROOT),
                                row.getString("standby_names").trim(),
                                row.getLong("standbys"),
                                row.getLong("sync_standbys"),
                                row.getLong("async_standbys")))
                .get(0);
        return judge(seen);
    }

    private static FailoverDurability judge(Seen s) {
        if (s.inRecovery()) {
            return new FailoverDurability(
                    Replication.UNKNOWN,
                    "connected to a standby (pg_is_in_recovery() is true), which takes no writes",
                    "connect the store to the primary (with PgJDBC: a multi-host URL with targetServerType=primary)");
        }
        if (s.synchronousCommit().equals("off")) {
            return new FailoverDurability(
                    Replication.ASYNCHRONOUS,
                    "synchronous_commit = off: a commit is acknowledged before its WAL is flushed, so a crash or a"
                            + " failover can lose the last acknowledged marks",
                    "set synchronous_commit = on (or remote_apply) for the store's role or database, e.g. ALTER ROLE"
                            + " app SET synchronous_commit = on");
        }
        String streaming = s.standbys() == 1 ? "1 standby streams" : s.standbys() + " standbys stream";
        if (s.standbys() == 0) {
            if (!s.standbyNames().isEmpty()) {
                return new FailoverDurability(
                        Replication.SYNCHRONOUS,
                        "synchronous_standby_names = '" + s.standbyNames() + "' and synchronous_commit = "
                                + s.synchronousCommit() + ", no standby connected now: commits wait for one",
                        "");
            }
            return new FailoverDurability(
                    Replication.STANDALONE,
                    "no standby streams from this server (pg_stat_replication is empty): nothing here to fail over to;"
                            + " a cascading standby or a replica restored from a WAL archive would not show here",
                    "");
        }
        if (s.standbyNames().isEmpty()) {
            return new FailoverDurability(
                    Replication.ASYNCHRONOUS,
                    streaming + " from this primary, none synchronously (synchronous_standby_names is empty): a"
                            + " failover to a standby that had not received the last commits loses them",
                    MAKE_SYNCHRONOUS);
        }
        if (s.synchronousCommit().equals("local")) {
            return new FailoverDurability(
                    Replication.ASYNCHRONOUS,
                    streaming + ", but synchronous_commit = local: commits do not wait for the synchronous standby",
                    "set synchronous_commit = on (or remote_apply) for the store's role or database");
        }
        String reason = "synchronous_standby_names = '" + s.standbyNames() + "', synchronous_commit = "
                + s.synchronousCommit() + "; " + streaming
                + (s.syncStandbys() + s.asyncStandbys() == 0
                        ? " (their sync_state is hidden from this role)"
                        : ", " + s.syncStandbys() + " synchronously");
        if (s.asyncStandbys() > 0) {
            reason += "; " + s.asyncStandbys() + " asynchronous or potential: fail over only to a synchronous"
                    + " standby (Patroni's synchronous_mode does)";
        }
        if (s.synchronousCommit().equals("remote_write")) {
            reason += "; remote_write: a commit is in the standby's memory, not yet flushed, when acknowledged";
        }
        return new FailoverDurability(Replication.SYNCHRONOUS, reason, "");
    }
}
