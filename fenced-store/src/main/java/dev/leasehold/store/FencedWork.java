package dev.leasehold.store;

import java.sql.Connection;
import java.sql.SQLException;

/** A write run by {@link FenceGate} inside the transaction that checked the token. */
@FunctionalInterface
public interface FencedWork {

    /**
     * Writes on {@code tx}. Do not commit, roll back, close it or change its auto-commit: the gate does that.
     */
    void run(Connection tx) throws SQLException;
}
