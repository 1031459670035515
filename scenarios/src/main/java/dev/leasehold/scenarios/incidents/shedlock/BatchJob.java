package dev.leasehold.scenarios.incidents.shedlock;

import java.sql.SQLException;

/**
 * What the nightly job does on the replica that holds the lock: it looks at the batch ({@link #prepare}), then writes
 * it ({@link #write}); a pause can fall between the two. Both run on the thread ShedLock runs the task on.
 */
interface BatchJob {

    /** Looks at the batch before the work (and, fenced, advances the gate with the lock's token). */
    void prepare(String replica) throws SQLException;

    /** Writes the batch; returns whether it was written. */
    boolean write(String replica) throws SQLException;
}
