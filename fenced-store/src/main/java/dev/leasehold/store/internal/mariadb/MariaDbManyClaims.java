package dev.leasehold.store.internal.mariadb;

import dev.leasehold.store.internal.BatchKey;
import dev.leasehold.store.internal.BatchRow;
import dev.leasehold.store.internal.Jdbc;
import dev.leasehold.store.internal.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@link MariaDbDialect}'s claims and finishes of many batches (issue 16's {@code claimUpTo} and {@code finishAll}).
 * A claim locks its rows as one claim does (SKIP LOCKED, expired leases first, then the oldest pending, each an index
 * range read in order), then claims them with one UPDATE by id and reads them back with one SELECT, in the caller's
 * transaction. A finish reads the given claims' rows with one locking read in id order (two finishes never deadlock;
 * at READ COMMITTED InnoDB lets go at once of a row whose fence moved on) and updates the rows it locked. Stateless
 * and thread-safe.
 */
final class MariaDbManyClaims {

    private final MariaDbDialect sql;

    MariaDbManyClaims(MariaDbDialect sql) {
        this.sql = sql;
    }

    /** Up to {@code max} claims, in the order they were picked. */
    List<BatchRow> claim(Connection tx, String owner, long leaseMillis, int maxAttempts, int max) throws SQLException {
        List<String> picked = sql.pick(tx, maxAttempts, max);
        if (picked.isEmpty()) {
            return List.of();
        }
        String in = " WHERE id IN (" + MariaDbDialect.marks(picked.size()) + ")";
        List<Object> params = new ArrayList<>(List.of(owner, leaseMillis));
        params.addAll(picked);
        Jdbc.update(tx, sql.claimSet() + in, params.toArray());
        Map<String, BatchRow> byId = new HashMap<>();
        for (BatchRow claim : Jdbc.query(
                tx,
                "SELECT " + SqlDialect.CLAIM_COLUMNS + " FROM " + sql.tables.batches() + in,
                SqlDialect::claimRow,
                picked.toArray())) {
            byId.put(claim.batchId(), claim);
        }
        return picked.stream().map(byId::get).toList();
    }

    /** The ids of the batches finished; the other claims were stale. */
    Set<String> finish(Connection tx, List<BatchKey> claims, String result) throws SQLException {
        if (claims.isEmpty()) {
            return Set.of();
        }
        List<BatchKey> byId =
                claims.stream().sorted(Comparator.comparing(BatchKey::batchId)).toList();
        List<Object> params = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (BatchKey claim : byId) {
            params.add(claim.batchId());
        }
        for (BatchKey claim : byId) {
            current.append(current.length() == 0 ? "" : " OR ").append("(id = ? AND fence = ?)");
            params.add(claim.batchId());
            params.add(claim.fence());
        }
        List<String> locked = Jdbc.query(
                tx,
                "SELECT id FROM " + sql.tables.batches() + " WHERE id IN ("
                        + MariaDbDialect.marks(byId.size()) + ") AND (" + current
                        + ") AND status = 'processing' ORDER BY id"
                        + " FOR UPDATE",
                row -> row.getString(1),
                params.toArray());
        if (!locked.isEmpty()) {
            List<Object> update = new ArrayList<>();
            update.add(result);
            update.addAll(locked);
            Jdbc.update(
                    tx,
                    "UPDATE " + sql.tables.batches() + " SET status = 'done', result = ?, lease_until = NULL,"
                            + " finished_at = " + sql.now() + " WHERE id IN (" + MariaDbDialect.marks(locked.size())
                            + ")",
                    update.toArray());
        }
        return Set.copyOf(locked);
    }
}
