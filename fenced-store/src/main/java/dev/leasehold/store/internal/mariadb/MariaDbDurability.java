package dev.leasehold.store.internal.mariadb;

import dev.leasehold.store.FailoverDurability;
import dev.leasehold.store.FailoverDurability.Replication;
import dev.leasehold.store.internal.Jdbc;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Whether the connected MariaDB or MySQL can lose an acknowledged commit on failover, from what any user may read:
 * the global variables and status of semi-synchronous replication (MariaDB's and MySQL's older {@code
 * rpl_semi_sync_master_*} names and MySQL 8's {@code rpl_semi_sync_source_*}), {@code log_bin} and {@code wsrep_on}
 * (Galera). Which replicas stream from the server needs a privilege an application user rarely has, so with binary
 * logging on and semi-synchronous replication off the answer is {@link Replication#UNKNOWN}. Stateless and
 * thread-safe.
 */
final class MariaDbDurability {

    private MariaDbDurability() {}

    private static final String NAMES = "('log_bin', 'wsrep_on', 'rpl_semi_sync_master_enabled',"
            + " 'rpl_semi_sync_source_enabled', 'rpl_semi_sync_master_wait_point', 'rpl_semi_sync_source_wait_point',"
            + " 'rpl_semi_sync_master_timeout', 'rpl_semi_sync_source_timeout', 'rpl_semi_sync_master_status',"
            + " 'rpl_semi_sync_source_status', 'rpl_semi_sync_master_clients', 'rpl_semi_sync_source_clients')";

    private static final String MAKE_SEMI_SYNCHRONOUS = "enable semi-synchronous replication"
            + " (rpl_semi_sync_master_enabled = ON on the primary, rpl_semi_sync_slave_enabled = ON on the replicas,"
            + " rpl_semi_sync_master_wait_point = AFTER_SYNC), and fail over only to a replica that acknowledged";

    static FailoverDurability of(Connection connection) throws SQLException {
        Map<String, String> v = new HashMap<>();
        for (String show : List.of(
                "SHOW GLOBAL VARIABLES WHERE Variable_name IN ", "SHOW GLOBAL STATUS WHERE" + " Variable_name IN ")) {
            for (String[] pair :
                    Jdbc.query(connection, show + NAMES, row -> new String[] {row.getString(1), row.getString(2)})) {
                v.put(pair[0].toLowerCase(Locale.ROOT).replace("_source_", "_master_"), pair[1]);
            }
        }
        return judge(v);
    }

    private static boolean on(Map<String, String> v, String name) {
        String value = v.get(name);
        return value != null && (value.equalsIgnoreCase("ON") || value.equals("1"));
    }

    private static FailoverDurability judge(Map<String, String> v) {
        if (on(v, "wsrep_on")) {
            return new FailoverDurability(
                    Replication.SYNCHRONOUS, "wsrep_on = ON: a Galera cluster certifies each commit on every node", "");
        }
        if (on(v, "rpl_semi_sync_master_enabled")) {
            String clients = v.getOrDefault("rpl_semi_sync_master_clients", "?");
            if (!on(v, "rpl_semi_sync_master_status")) {
                return new FailoverDurability(
                        Replication.ASYNCHRONOUS,
                        "semi-synchronous replication is enabled but inactive (Rpl_semi_sync_master_status = OFF, "
                                + clients + " semi-synchronous replicas): it fell back to asynchronous after"
                                + " rpl_semi_sync_master_timeout, or no replica acknowledges",
                        "connect a semi-synchronous replica (rpl_semi_sync_slave_enabled = ON) and raise"
                                + " rpl_semi_sync_master_timeout so that it does not fall back");
            }
            String reason = "semi-synchronous replication is active (" + clients + " semi-synchronous replicas,"
                    + " wait point " + v.getOrDefault("rpl_semi_sync_master_wait_point", "?") + "); after "
                    + v.getOrDefault("rpl_semi_sync_master_timeout", "?") + " ms without an acknowledgement it falls"
                    + " back to asynchronous";
            return new FailoverDurability(Replication.SYNCHRONOUS, reason, "");
        }
        if (!on(v, "log_bin")) {
            return new FailoverDurability(
                    Replication.STANDALONE, "log_bin = OFF: no replica can stream from this server", "");
        }
        return new FailoverDurability(
                Replication.UNKNOWN,
                "binary logging is on and semi-synchronous replication is off: if replicas stream from this server,"
                        + " they do so asynchronously and a failover to one can lose acknowledged marks (which"
                        + " replicas stream is not readable without a replication privilege)",
                MAKE_SEMI_SYNCHRONOUS);
    }
}
