package dev.leasehold.store.internal;

import dev.leasehold.store.FailoverDurability;
import dev.leasehold.store.Redaction;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durability check at a store's first use: reads {@link FailoverDurability} once and, when the server can lose an
 * acknowledged mark (or lease grant) on failover, logs one WARN per server, user and {@link Subject} in this JVM (many
 * gates on one data source warn once; a lease election on it once more), with what to set. A failure to read it is
 * logged at INFO by the caller and never fails the store. Thread-safe.
 */
public final class DurabilityCheck {

    /** What a failover can lose, and what follows: the WARN's words. */
    public enum Subject {
        /** A gate's fence marks ({@code FenceGate}, {@code FencedSchema}). */
        FENCE_MARKS("fenced store", "acknowledged fence marks, and a stale token would then pass"),
        /** A lease election's grants ({@code LeaseElection}). */
        LEASE_GRANTS(
                "lease election",
                "acknowledged lease grants, and a generation would then be granted twice: two holders with one"
                        + " token, and a stale one passing the fence");

        private final String who;
        private final String what;

        Subject(String who, String what) {
            this.who = who;
            this.what = what;
        }
    }

    private static final Logger log = LoggerFactory.getLogger("dev.leasehold.store.FailoverDurability");
    private static final Set<String> warned = ConcurrentHashMap.newKeySet();

    private DurabilityCheck() {}

    /**
     * Reads the durability on {@code connection} with {@code sql}.
     *
     * @return the durability, after logging it if it is at risk and this server was not warned about yet
     */
    public static FailoverDurability read(Connection connection, SqlDialect sql) throws SQLException {
        return read(connection, sql, Subject.FENCE_MARKS);
    }

    /**
     * Reads the durability on {@code connection} with {@code sql}, for {@code subject}.
     *
     * @return the durability, after logging it if it is at risk and this server was not warned about for {@code
     *     subject} yet
     */
    public static FailoverDurability read(Connection connection, SqlDialect sql, Subject subject) throws SQLException {
        FailoverDurability durability = sql.durability(connection);
        DatabaseMetaData meta = connection.getMetaData();
        // the URL without its parameters, and no user:password@ either: a password must never reach the log
        String url =
                meta.getURL() == null ? "?" : Redaction.redact(meta.getURL().replaceAll("[?;].*", ""));
        warnOnce(url + " as " + meta.getUserName(), subject, durability);
        return durability;
    }

    /**
     * Logs a WARN for {@code durability} if it is at risk and {@code server} was not warned about in this JVM yet.
     *
     * @return whether it logged
     */
    static boolean warnOnce(String server, FailoverDurability durability) {
        return warnOnce(server, Subject.FENCE_MARKS, durability);
    }

    /**
     * Logs a WARN for {@code durability} if it is at risk and {@code server} was not warned about for {@code subject}
     * in this JVM yet.
     *
     * @return whether it logged
     */
    static boolean warnOnce(String server, Subject subject, FailoverDurability durability) {
        if (!durability.atRisk() || !warned.add(subject + " " + server)) {
            return false;
        }
        log.warn(
                "{} on {}: a failover can lose {}: {}. To fix: {}",
                subject.who,
                server,
                subject.what,
                durability.reason(),
                durability.advice());
        return true;
    }
}
