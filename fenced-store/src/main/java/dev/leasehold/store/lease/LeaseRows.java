package dev.leasehold.store.lease;

import dev.leasehold.store.StoreConfig;
import java.util.Optional;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One election's statements on its lease row, each on a connection of its own ({@link LeaseJdbc}), with a query
 * timeout of the renew deadline (whole seconds, at least 1).
 *
 * <p>Thread-safety: thread-safe; {@link #take} is called from the election's loop thread only.
 */
final class LeaseRows {

    private static final Logger log = LoggerFactory.getLogger(LeaseElection.class);

    private final LeaseJdbc jdbc;
    private final String name;
    private final int timeoutSeconds;
    /** Whether the row exists (then a take is one UPDATE); the loop thread's only. */
    private boolean rowSeen;

    LeaseRows(DataSource dataSource, StoreConfig config, String name, LeaseTiming timing) {
        this.jdbc = new LeaseJdbc(dataSource, config, log);
        this.name = name;
        this.timeoutSeconds = (int) Math.max(1, (timing.renewDeadline().toMillis() + 999) / 1000);
    }

    /**
     * Takes the lease if it ended: one UPDATE; the first time, if the row does not exist, one INSERT more.
     *
     * @return the new grant's generation, or empty if someone else holds it
     */
    OptionalLong take(String holder, long leaseMillis) {
        // at the election's first statement: a WARN if a failover can lose its grants
        jdbc.checkDurabilityOnce("lease election '" + name + "'");
        return jdbc.run("taking lease '" + name + "' for '" + holder + "'", (sql, c) -> {
            OptionalLong taken = sql.take(c, name, holder, leaseMillis, timeoutSeconds);
            if (taken.isPresent() || rowSeen) {
                rowSeen = true;
                return taken;
            }
            boolean created = sql.create(c, name, holder, leaseMillis, timeoutSeconds);
            rowSeen = true;
            return created ? OptionalLong.of(1) : OptionalLong.empty();
        });
    }

    /** @return whether the grant was still current and now runs for another lease duration */
    boolean renew(String holder, long token, long leaseMillis) {
        return jdbc.run(
                "renewing lease '" + name + "' (holder '" + holder + "', token " + token + ")",
                (sql, c) -> sql.renew(c, name, holder, token, leaseMillis, timeoutSeconds));
    }

    /** @return whether the grant was still current and has now ended */
    boolean release(String holder, long token) {
        return jdbc.run(
                "releasing lease '" + name + "' (holder '" + holder + "', token " + token + ")",
                (sql, c) -> sql.release(c, name, holder, token, timeoutSeconds));
    }

    Optional<LeaseHolder> read() {
        return jdbc.run("reading lease '" + name + "'", (sql, c) -> sql.read(c, name, timeoutSeconds))
                .map(row -> new LeaseHolder(row.holder(), row.generation(), row.leaseUntil()));
    }
}
