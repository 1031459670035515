package dev.leasehold.store.claims;

import dev.leasehold.store.internal.Args;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Checks at the door for the operations on many batches at once. Stateless and thread-safe. */
final class ClaimLists {

    /** How many batches one call claims or finishes at most (bounds a statement's parameters and locks). */
    static final int MAX = 1_000;

    private ClaimLists() {}

    /** A number of batches to claim: 1 to {@link #MAX}. */
    static int max(int max) {
        if (max < 1 || max > MAX) {
            throw new IllegalArgumentException("max must be between 1 and " + MAX + ", was " + max);
        }
        return max;
    }

    /** Claims to finish: not null, at most {@link #MAX}, no null element, each batch once. */
    static List<BatchClaim> claims(List<BatchClaim> claims) {
        Args.notNull(claims, "claims");
        if (claims.size() > MAX) {
            throw new IllegalArgumentException("claims must hold at most " + MAX + ", held " + claims.size());
        }
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < claims.size(); i++) {
            BatchClaim claim = claims.get(i);
            if (claim == null) {
                throw new IllegalArgumentException("claims[" + i + "] must not be null");
            }
            Integer before = seen.putIfAbsent(claim.batchId(), i);
            if (before != null) {
                throw new IllegalArgumentException(
                        "claims must name each batch once; '" + claim.batchId() + "' is at " + before + " and " + i);
            }
        }
        return List.copyOf(claims);
    }
}
