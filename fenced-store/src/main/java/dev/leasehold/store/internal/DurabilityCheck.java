package dev.leasehold.store.internal;

import dev.leasehold.store.FailoverDurability;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durability check at a store's first use: reads {@link FailoverDurability} once and, when the server can lose an
 * acknowledged mark on failover, logs one WARN per server and user in this JVM (many gates on one data source warn
 * once), with what to set. A failure to read it is logged at INFO and never fails the store. Thread-safe.
 */
public final class DurabilityCheck {

    private static final Logger log = LoggerFactory.getLogger("dev.leasehold.store.FailoverDurability");
    private static final Set<String> warned = ConcurrentHashMap.newKeySet();

    private DurabilityCheck() {}

    /**
     * Reads the durability on {@code connection} with {@code sql}.
     *
     * @return the durability, after logging it if it is at risk and this server was not warned about yet
     */
    public static FailoverDurability read(Connection connection, SqlDialect sql) throws SQLException {
        FailoverDurability durability = sql.durability(connection);
        DatabaseMetaData meta = connection.getMetaData();
        // the URL without its parameters: a password in the URL must never reach the log
        String url = meta.getURL() == null ? "?" : meta.getURL().replaceAll("[?;].*", "");
        warnOnce(url + " as " + meta.getUserName(), durability);
        return durability;
    }

    /**
     * Logs a WARN for {@code durability} if it is at risk and {@code server} was not warned about in this JVM yet.
     *
     * @return whether it logged
     */
    static boolean warnOnce(String server, FailoverDurability durability) {
        if (!durability.atRisk() || !warned.add(server)) {
            return false;
        }
        log.warn(
                "fenced store on {}: a failover can lose acknowledged fence marks, and a stale token would then pass:"
                        + " {}. To fix: {}",
                server,
                durability.reason(),
                durability.advice());
        return true;
    }
}
