package dev.leasehold.store;

import java.sql.Connection;
import java.sql.SQLException;

/** Like {@link FencedWork}, with a result. */
@FunctionalInterface
public interface FencedCall<T> {

    /** Reads and writes on {@code tx}. Do not commit, roll back, close it or change its auto-commit. */
    T call(Connection tx) throws SQLException;
}
