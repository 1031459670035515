package dev.leasehold.store;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Like {@link FencedWork}, with a result. Called on the caller's thread, once per call; implementations need not be
 * thread-safe unless shared between calls running at once.
 */
@FunctionalInterface
public interface FencedCall<T> {

    /**
     * Reads and writes on {@code tx}, under the same rules as {@link FencedWork#run}.
     *
     * @param tx the gate's transaction
     * @return what {@link FenceGate#call} returns once the transaction has committed
     * @throws SQLException any failure of the work: everything is rolled back
     */
    T call(Connection tx) throws SQLException;
}
