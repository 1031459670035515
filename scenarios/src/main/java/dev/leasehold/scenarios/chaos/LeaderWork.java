package dev.leasehold.scenarios.chaos;

import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencingException;
import dev.leasehold.store.StaleTokenException;
import dev.leasehold.testkit.HistoryTable;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * A leader's work on one resource, the same for every kind of election: fence first ({@code advance}), then write
 * (participant, token, sequence number, session) into the history table through the gate, in the gate's
 * transaction, until the resource refuses the token or {@code stopped} says so. A database error (a terminated
 * connection, a restarting database, a participant cut off) is counted and the loop goes on.
 *
 * @param id              the participant
 * @param resource        the fenced resource
 * @param prefix          the table prefix of the history table
 * @param gate            the gate it writes through
 * @param unfenced        null to write through the gate; a data source to write without it
 * @param beforeEachWrite runs between the leadership check and each write (where a pause freezes the worker)
 * @param events          where grants' writes are reported
 */
record LeaderWork(
        String id,
        String resource,
        String prefix,
        FenceGate gate,
        DataSource unfenced,
        Runnable beforeEachWrite,
        Member.Events events) {

    /** Writes with {@code token} until refused or stopped; reports the end of the belief when it returns. */
    void run(long token, long session, BooleanSupplier stopped) {
        try {
            boolean fenced = false;
            for (long seq = 1; !stopped.getAsBoolean(); seq++) {
                beforeEachWrite.run();
                long n = seq;
                boolean interrupted = Thread.interrupted(); // a frozen thread never saw the interrupt
                try {
                    if (unfenced != null) {
                        try (Connection c = unfenced.getConnection()) {
                            insert(c, token, n, session);
                        }
                    } else {
                        if (!fenced) {
                            gate.advance(resource, token);
                            fenced = true;
                        }
                        gate.write(resource, token, tx -> insert(tx, token, n, session));
                    }
                    events.acknowledged(token, n);
                } catch (StaleTokenException e) {
                    events.staleRejected(token);
                    return;
                } catch (FencingException | SQLException e) {
                    events.databaseError(); // a terminated connection or a restarting database: try again
                } finally {
                    if (interrupted) {
                        Thread.currentThread().interrupt();
                    }
                }
                Thread.sleep(Member.WRITE_PACE_MS); // the pace of the leader's work
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            events.ended(token, System.nanoTime());
        }
    }

    private void insert(Connection tx, long token, long seq, long session) throws SQLException {
        HistoryTable.insert(tx, prefix, new HistoryTable.Write(resource, id, token, seq, session));
    }
}
