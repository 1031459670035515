package dev.leasehold.scenarios.chaos;

import dev.leasehold.store.CommitOutcomeUnknownException;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencingException;
import dev.leasehold.store.StaleTokenException;
import dev.leasehold.testkit.HistoryTable;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * A leader's work on one resource, the same for every kind of election: fence first ({@code advance}), then write
 * (participant, token, sequence number, session) into the history table through the gate, in the gate's
 * transaction, until the resource refuses the token or {@code stopped} says so. A database error (a terminated
 * connection, a restarting database, a failover, a participant cut off) is counted and the loop goes on.
 *
 * <p>A write whose commit's outcome is unknown ({@link CommitOutcomeUnknownException}: the connection was lost during
 * the commit, as when the primary is killed) is read back before the work goes on, as the exception asks: found in
 * the table (on the primary of the moment, after a failover the new one), it is acknowledged; not found, it was not
 * kept, and the next write has the next sequence number. A lost {@code advance} is simply repeated (a mark only moves
 * up).
 *
 * @param id              the participant
 * @param resource        the fenced resource
 * @param prefix          the table prefix of the history table
 * @param gate            the gate it writes through
 * @param database        the database: where a write of unknown outcome is read back, and where an unfenced write goes
 * @param unfenced        write without the gate (no advance, no token check)
 * @param beforeEachWrite runs between the leadership check and each write (where a pause freezes the worker)
 * @param events          where grants' writes are reported
 */
record LeaderWork(
        String id,
        String resource,
        String prefix,
        FenceGate gate,
        DataSource database,
        boolean unfenced,
        Runnable beforeEachWrite,
        Member.Events events) {

    /** How long a write of unknown outcome is read back for (through a failover) before it is left unknown. */
    private static final long READ_BACK_NANOS = TimeUnit.SECONDS.toNanos(20);

    /** Writes with {@code token} until refused or stopped; reports the end of the belief when it returns. */
    void run(long token, long session, BooleanSupplier stopped) {
        try {
            boolean fenced = false;
            for (long seq = 1; !stopped.getAsBoolean(); seq++) {
                beforeEachWrite.run();
                long n = seq;
                boolean interrupted = Thread.interrupted(); // a frozen thread never saw the interrupt
                long sent = System.nanoTime();
                try {
                    if (unfenced) {
                        try (Connection c = database.getConnection()) {
                            insert(c, token, n, session);
                        }
                    } else {
                        if (!fenced) {
                            gate.advance(resource, token);
                            fenced = true;
                        }
                        sent = System.nanoTime();
                        gate.write(resource, token, tx -> insert(tx, token, n, session));
                    }
                    events.acknowledged(resource, token, n, sent, System.nanoTime());
                } catch (StaleTokenException e) {
                    events.staleRejected(token);
                    return;
                } catch (CommitOutcomeUnknownException e) {
                    events.databaseError(what(e));
                    // fenced: the write's commit (an advance's own would leave fenced false, and it is repeated)
                    if (fenced && kept(token, n, session)) {
                        events.acknowledged(resource, token, n, sent, System.nanoTime());
                    }
                } catch (FencingException | SQLException e) {
                    events.databaseError(what(e)); // a terminated connection, a restarting database, a failover
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

    /**
     * Reads back whether write #{@code seq} was committed, retrying while the database cannot answer (no primary yet
     * during a failover); false if it was not, or if nobody could tell within {@link #READ_BACK_NANOS}.
     */
    private boolean kept(long token, long seq, long session) throws InterruptedException {
        HistoryTable.Write write = new HistoryTable.Write(resource, id, token, seq, session);
        long deadline = System.nanoTime() + READ_BACK_NANOS;
        while (true) {
            try {
                return HistoryTable.contains(database, prefix, write);
            } catch (SQLException e) {
                events.databaseError(what(e));
                if (System.nanoTime() > deadline) {
                    return false; // left unknown: never acknowledged, so the checker does not count on it
                }
            }
            Thread.sleep(4 * Member.WRITE_PACE_MS); // the pace of the read-back while the database cannot answer
        }
    }

    /** The database's error as one line, "SQLState: message" (the store's message where no SQLException is behind). */
    static String what(Exception e) {
        Throwable cause = e;
        while (cause != null && !(cause instanceof SQLException)) {
            cause = cause.getCause();
        }
        String what = cause instanceof SQLException sql
                ? sql.getSQLState() + ": " + sql.getMessage()
                : e.getClass().getSimpleName() + ": " + e.getMessage();
        what = what.replaceAll("\\s+", " ").strip();
        return what.length() <= 200 ? what : what.substring(0, 200) + "...";
    }

    private void insert(Connection tx, long token, long seq, long session) throws SQLException {
        HistoryTable.insert(tx, prefix, new HistoryTable.Write(resource, id, token, seq, session));
    }
}
