package dev.leasehold.scenarios.incidents.duplicatebatch;

import java.sql.SQLException;
import java.util.concurrent.locks.Lock;

/**
 * What a pod's tick does with the lock it holds, in the lock form: the one difference between the lock without a
 * token and the fenced lock. Both run on the pod's thread, between {@code tryLock} and {@code unlock}.
 */
interface LockedPush {

    /**
     * Right after {@code tryLock} returned true: the hold's token, or 0 for a lock that has none (a fenced lock reads
     * {@code lock.token()} here and fences first).
     */
    long taken(String pod, Lock lock);

    /** Pushes {@code batch} to accounting, telling the timeline; false if the resource refused it. */
    boolean push(String pod, String batch, long token) throws SQLException;
}
