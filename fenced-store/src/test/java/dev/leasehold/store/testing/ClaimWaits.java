package dev.leasehold.store.testing;

import dev.leasehold.store.StoreException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The lock waits a claim can meet on a database although claimers skip each other's rows, for the claim tests that
 * give the store a 1 ms lock timeout so that any wait fails. A claim that failed on such a wait wrote nothing and is
 * made again ({@link #again}); any other lock timeout fails the test: a claim waited for another claim.
 *
 * <p>{@link #NONE} on H2 and MariaDB: no claim there has met such a wait (on MariaDB the store's lock timeout is whole
 * seconds, so 1 ms becomes 1 s). PostgreSQL's, directly or through PgBouncer, are {@link PostgresLockWaits}; {@link
 * #of} picks by the database a data source reaches.
 */
public interface ClaimWaits {

    /** No wait is allowed: every lock timeout of a claim fails the test. */
    ClaimWaits NONE = failure -> false;

    /** @return the waits a claim can meet on the database {@code ds} reaches: PostgreSQL's there, else none */
    static ClaimWaits of(DataSource ds) {
        try (Connection c = ds.getConnection()) {
            return c.getMetaData().getDatabaseProductName().equals("PostgreSQL") ? PostgresLockWaits.CLAIMS : NONE;
        } catch (SQLException e) {
            throw new IllegalStateException("could not tell which database the claims' data source reaches", e);
        }
    }

    /** Whether {@code failure} is a lock timeout on something other than a row another claimer holds. */
    boolean onNoClaimersRow(StoreException failure);

    /** What the database said of the wait in {@code failure}, for a test's message ("" if nothing more). */
    default String where(StoreException failure) {
        return "";
    }

    /** How many times {@link #again} makes one claim before it gives up: such waits are rare and short. */
    int MAX_ATTEMPTS = 100;

    /**
     * Makes {@code claim}, and makes it again each time it fails only on a wait {@link #onNoClaimersRow} allows, at
     * most {@link #MAX_ATTEMPTS} times in all.
     *
     * @param waits counts the claims made again
     * @throws AssertionError when a claim failed on a lock another claim may hold, when the claims' thread was
     *     interrupted (the test is over), or when every attempt met an allowed wait
     */
    default <T> T again(Supplier<T> claim, AtomicInteger waits) {
        StoreException last = null;
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            if (Thread.currentThread().isInterrupted()) {
                throw new AssertionError("interrupted while claiming", last);
            }
            try {
                return claim.get();
            } catch (StoreException e) {
                if (!onNoClaimersRow(e)) {
                    throw new AssertionError(
                            ("a claim waited for a lock another claim may hold: " + e.getMessage() + " " + where(e))
                                    .strip(),
                            e);
                }
                last = e;
                waits.incrementAndGet();
            }
        }
        throw new AssertionError(MAX_ATTEMPTS + " claims in a row met a lock on no claimer's row", last);
    }
}
