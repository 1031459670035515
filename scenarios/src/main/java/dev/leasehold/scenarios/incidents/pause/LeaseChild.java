package dev.leasehold.scenarios.incidents.pause;

import dev.leasehold.scenarios.chaos.ChildArgs;
import dev.leasehold.scenarios.incidents.RetryingGate;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.StaleTokenException;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.lease.LeaseElection;
import dev.leasehold.store.lease.LeaseListener;
import dev.leasehold.store.lease.LeaseLoss;
import dev.leasehold.store.lease.LeaseTiming;
import dev.leasehold.testkit.HistoryTable;
import dev.leasehold.testkit.SimpleDataSource;
import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;

/**
 * One participant of the {@code db-lease} scenario, run as its own JVM so that {@code kill -STOP} freezes all of it:
 * a {@link LeaseElection} on the scenario's database, no ZooKeeper. When it leads it fences the resource and then
 * writes every 250 ms with its token until the resource refuses (a naive loop that never re-checks leadership, as
 * code in a long pause never can). It reports on stdout, one line per event: JOINED pid, LEADER token, FENCED token,
 * WROTE token seq, REJECTED token highest, LOST token cause, RETRY text (a retryable advance or write, retried).
 *
 * <p>Arguments: {@link ChildArgs}; {@code path} is the lease's name (without its leading '/'), {@code sessionMs} the
 * lease duration in milliseconds (renew deadline a third of it, retry period a fifteenth, as the seeds' 15 s / 5 s).
 */
public final class LeaseChild {

    private LeaseChild() {}

    /** The seeds' lease 15 s, renew 5 s, scaled to {@code leaseMs}; retries every fifteenth of the lease. */
    static LeaseTiming timing(long leaseMs) {
        return LeaseTiming.ofMillis(leaseMs, leaseMs / 3, leaseMs / 15);
    }

    public static void main(String[] args) throws Exception {
        ChildArgs child = ChildArgs.parse(args);
        PrintStream out = System.out;
        DataSource ds = new SimpleDataSource(child.jdbcUrl(), child.user(), child.password());
        StoreConfig config = RetryingGate.config(child.prefix());
        FenceGate gate = new FenceGate(ds, config);
        LeaseElection election = new LeaseElection(
                ds,
                child.path().substring(1),
                child.id(),
                timing(child.sessionMs()),
                new LeaseListener() {
                    @Override
                    public void acquired(long token) {
                        say(out, "LEADER " + token);
                        Thread writer = new Thread(() -> write(out, gate, child, token), "writer");
                        writer.setDaemon(true);
                        writer.start();
                    }

                    @Override
                    public void lost(long token, LeaseLoss cause) {
                        say(out, "LOST " + token + " " + cause);
                    }
                },
                config);
        election.start();
        say(out, "JOINED " + ProcessHandle.current().pid());
        new CountDownLatch(1).await(); // runs until the scenario kills it
    }

    private static void write(PrintStream out, FenceGate gate, ChildArgs child, long token) {
        try {
            RetryingGate.advance(gate, child.resource(), token, text -> say(out, "RETRY " + text));
            say(out, "FENCED " + token);
            for (int seq = 1; ; seq++) {
                Thread.sleep(250); // the pace of the leader's work
                HistoryTable.Write row = new HistoryTable.Write(child.resource(), child.id(), token, seq, 0);
                RetryingGate.write(
                        gate,
                        child.resource(),
                        token,
                        tx -> HistoryTable.insert(tx, child.prefix(), row),
                        text -> say(out, "RETRY " + text));
                say(out, "WROTE " + token + " " + seq);
            }
        } catch (StaleTokenException e) {
            say(out, "REJECTED " + e.offeredToken() + " " + e.highestToken());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            say(out, "FAILED " + String.valueOf(e.getMessage()).replace('\n', ' '));
        }
    }

    private static void say(PrintStream out, String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }
}
