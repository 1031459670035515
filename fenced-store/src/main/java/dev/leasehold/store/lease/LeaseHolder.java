package dev.leasehold.store.lease;

import java.time.Instant;

/**
 * Who holds a lease, as its row said when it was read ({@link LeaseElection#currentHolder()}).
 *
 * <p>Immutable and thread-safe; a snapshot, possibly out of date by the time it is read.
 *
 * @param holder     the holder's id as configured (the row stores it with a suffix of the election instance's own)
 * @param token      the generation of its grant (its fencing token)
 * @param leaseUntil when its lease ends by the database's clock, unless renewed (an instant of that clock: compare it
 *                   with other instants of the database, not with this machine's clock)
 */
public record LeaseHolder(String holder, long token, Instant leaseUntil) {}
