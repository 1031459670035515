package dev.leasehold.store.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Deletes old rows in bounded chunks: each chunk is one DELETE of at most {@code chunk} rows in its own short
 * transaction, so a purge never holds many locks or one huge transaction, and other writers interleave with it.
 * Stateless and thread-safe.
 */
public final class Retention {

    private Retention() {}

    /** The database's clock minus {@code olderThan}: rows older than this go. */
    public static Instant cutoff(StoreContext context, String operation, Duration olderThan) {
        List<Instant> now = context.jdbc()
                .withConnection(
                        operation,
                        c -> Jdbc.query(
                                c, "SELECT " + context.sql().now() + " AS db_now", row -> Jdbc.instant(row, "db_now")));
        return now.get(0).minus(olderThan);
    }

    /**
     * Runs {@code delete} (which deletes at most {@code chunk} rows; parameters {@code params}) until a run deletes
     * fewer than {@code chunk}; returns how many rows went in all.
     */
    public static long inChunks(StoreContext context, String operation, String delete, int chunk, Object... params) {
        long total = 0;
        while (true) {
            int deleted = context.jdbc().withConnection(operation, c -> Jdbc.update(c, delete, params));
            total += deleted;
            if (deleted < chunk) {
                return total;
            }
        }
    }
}
