package dev.leasehold.store.internal.h2;

import dev.leasehold.store.internal.BatchKey;
import dev.leasehold.store.internal.BatchRow;
import dev.leasehold.store.internal.Jdbc;
import dev.leasehold.store.internal.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@link H2Dialect}'s claims and finishes of many batches. H2 locks every row a {@code FOR UPDATE} query reads, so, as
 * for one claim, candidates are read without locks (one index range each), then locked by primary key; but here a
 * whole page of candidates at once: one locking read of the page ({@code WHERE id IN (...) FOR UPDATE SKIP LOCKED},
 * which reads only those rows), one UPDATE of the ones still claimable, and the rows found taken meanwhile are let go
 * at the commit. Per call: the candidate reads, one lock, one update, one commit (more pages only when racing
 * claimers took a whole page). Stateless and thread-safe.
 */
final class H2ManyClaims {

    private final H2Dialect sql;

    H2ManyClaims(H2Dialect sql) {
        this.sql = sql;
    }

    private record Candidate(String id, long seq) {}

    List<BatchRow> claim(Connection tx, String owner, long leaseMillis, int maxAttempts, int max) throws SQLException {
        String batches = sql.tables.batches();
        List<Candidate> expired = Jdbc.query(
                tx,
                "SELECT id, seq FROM " + batches + " WHERE " + sql.expired()
                        + " ORDER BY status, lease_until FETCH FIRST " + max + " ROWS ONLY",
                H2ManyClaims::candidate);
        List<BatchRow> claimed = new ArrayList<>(lock(tx, expired, owner, leaseMillis, maxAttempts));
        long after = Long.MIN_VALUE;
        while (claimed.size() < max) {
            int want = max - claimed.size();
            List<Candidate> pending = Jdbc.query(
                    tx,
                    "SELECT id, seq FROM " + batches + " WHERE status = 'pending'"
                            + " AND seq > ? ORDER BY status, seq FETCH FIRST " + want + " ROWS ONLY",
                    H2ManyClaims::candidate,
                    after);
            claimed.addAll(lock(tx, pending, owner, leaseMillis, maxAttempts));
            if (pending.size() < want) {
                break; // the pending range is exhausted
            }
            after = pending.get(pending.size() - 1).seq();
        }
        return claimed;
    }

    private static Candidate candidate(java.sql.ResultSet row) throws SQLException {
        return new Candidate(row.getString("id"), row.getLong("seq"));
    }

    /**
     * Locks the candidates nobody holds; marks failed those expired with no attempts left; claims the others that are
     * still claimable (another claimer may have taken one between the read and the lock). Returns the claims in the
     * candidates' order.
     */
    private List<BatchRow> lock(
            Connection tx, List<Candidate> candidates, String owner, long leaseMillis, int maxAttempts)
            throws SQLException {
        if (candidates.isEmpty()) {
            return List.of();
        }
        Object[] ids = candidates.stream().map(Candidate::id).toArray();
        String in = " WHERE id IN (" + SqlDialect.markers(ids.length) + ")";
        String expired = sql.expired();
        Object[] lockParams = new Object[ids.length + 1];
        lockParams[0] = (long) maxAttempts;
        System.arraycopy(ids, 0, lockParams, 1, ids.length);
        List<String[]> locked = Jdbc.query(
                tx,
                "SELECT id, CASE WHEN " + expired + " AND attempts >= ? THEN 'used_up'"
                        + " WHEN " + expired
                        + " OR status = 'pending' THEN 'claimable' ELSE 'taken' END AS verdict FROM "
                        + sql.tables.batches() + in + " FOR UPDATE SKIP LOCKED",
                row -> new String[] {row.getString("id"), row.getString("verdict")},
                lockParams);
        List<Object> usedUp = new ArrayList<>();
        List<Object> claimable = new ArrayList<>();
        for (String[] row : locked) {
            if (row[1].equals("used_up")) {
                usedUp.add(row[0]);
            } else if (row[1].equals("claimable")) {
                claimable.add(row[0]);
            }
        }
        if (!usedUp.isEmpty()) {
            Jdbc.update(
                    tx, sql.exhaust() + " WHERE id IN (" + SqlDialect.markers(usedUp.size()) + ")", usedUp.toArray());
        }
        if (claimable.isEmpty()) {
            return List.of();
        }
        Object[] claimParams = new Object[claimable.size() + 2];
        claimParams[0] = owner;
        claimParams[1] = leaseMillis;
        for (int i = 0; i < claimable.size(); i++) {
            claimParams[i + 2] = claimable.get(i);
        }
        Map<String, Integer> order = new HashMap<>();
        for (int i = 0; i < candidates.size(); i++) {
            order.put(candidates.get(i).id(), i);
        }
        return Jdbc.query(
                        tx,
                        sql.returning(
                                sql.claimSet() + " WHERE id IN (" + SqlDialect.markers(claimable.size()) + ")",
                                SqlDialect.CLAIM_COLUMNS),
                        SqlDialect::claimRow,
                        claimParams)
                .stream()
                .sorted(Comparator.comparing(claim -> order.get(claim.batchId())))
                .toList();
    }

    /** One JDBC batch of conditional updates, in id order (so that two finishes never deadlock), in {@code tx}. */
    Set<String> finish(Connection tx, List<BatchKey> claims, String result) throws SQLException {
        List<BatchKey> byId =
                claims.stream().sorted(Comparator.comparing(BatchKey::batchId)).toList();
        Set<String> finished = new HashSet<>();
        try (PreparedStatement statement =
                tx.prepareStatement(sql.finishSet() + " WHERE id = ? AND fence = ? AND status = 'processing'")) {
            for (BatchKey claim : byId) {
                statement.setString(1, result);
                statement.setString(2, claim.batchId());
                statement.setLong(3, claim.fence());
                statement.addBatch();
            }
            int[] counts = statement.executeBatch();
            for (int i = 0; i < counts.length; i++) {
                if (counts[i] > 1) {
                    throw new IllegalStateException("finishing batch '"
                            + byId.get(i).batchId() + "' changed " + counts[i] + " rows, expected 0 or 1: a bug");
                }
                if (counts[i] == 1) {
                    finished.add(byId.get(i).batchId());
                }
            }
        }
        return finished;
    }
}
