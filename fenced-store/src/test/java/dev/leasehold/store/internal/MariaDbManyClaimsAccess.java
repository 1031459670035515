package dev.leasehold.store.internal;

import dev.leasehold.store.Database;
import dev.leasehold.store.StoreConfig;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;

/** Test access to the MariaDB dialect's claims and finishes of many batches (issue 16's SQL, on MariaDB). */
public final class MariaDbManyClaimsAccess {

    private MariaDbManyClaimsAccess() {}

    private static MariaDbDialect dialect() {
        return (MariaDbDialect) SqlDialect.of(Database.MARIADB, new Tables(StoreConfig.DEFAULT_PREFIX));
    }

    public static List<BatchRow> claim(Connection tx, String owner, long leaseMillis, int maxAttempts, int max)
            throws SQLException {
        return dialect().claimBatches(tx, owner, leaseMillis, maxAttempts, max);
    }

    public static Set<String> finish(Connection tx, List<BatchKey> claims, String result) throws SQLException {
        return dialect().finishBatches(tx, claims, result);
    }
}
