package dev.leasehold.scenarios.incidents.pause;

import dev.leasehold.recipes.FencedLeaderLatch;
import dev.leasehold.recipes.FencedLeaderListener;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.scenarios.chaos.ChildArgs;
import dev.leasehold.scenarios.incidents.Quiescence;
import dev.leasehold.scenarios.incidents.RetryingGate;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.StaleTokenException;
import dev.leasehold.testkit.HistoryTable;
import dev.leasehold.testkit.SimpleDataSource;
import dev.leasehold.testkit.TcpProxy;
import java.io.PrintStream;
import java.sql.Connection;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.RetryNTimes;

/**
 * One participant of the {@code real-pause} scenario, run as its own JVM so that {@code kill -STOP} freezes all of
 * it. It joins the election; when it leads it fences the resource and then writes every 250 ms with its token until
 * the resource refuses (a naive loop that never re-checks leadership, as code in a long GC pause never can). With
 * {@code unfenced} it writes straight to the table, without the gate. It reports on stdout, one line per event (RETRY text: a retryable advance or write, retried).
 *
 * <p>Reads {@code QUIESCE} (answered {@code QUIET}) and {@code RESUME} on stdin ({@link Quiescence}: the scenario stops
 * it between transactions where the database cannot end an idle one); it exits when stdin closes.
 *
 * <p>Arguments: {@link ChildArgs} (a latch; the resource is the ledger).
 */
public final class PauseChild {

    private PauseChild() {}

    public static void main(String[] args) throws Exception {
        ChildArgs child = ChildArgs.parse(args);
        PrintStream out = System.out;
        DataSource ds = new SimpleDataSource(child.jdbcUrl(), child.user(), child.password());
        FenceGate gate = new FenceGate(ds, RetryingGate.config(child.prefix()));
        CuratorFramework client = TcpProxy.clientBuilder(child.zk(), child.sessionMs())
                .retryPolicy(new RetryNTimes(10, 100))
                .build();
        client.start();
        FencedLeaderLatch latch = new FencedLeaderLatch(client, child.path(), child.id());
        latch.addListener(new FencedLeaderListener() {
            @Override
            public void leadershipAcquired(FencingToken token) {
                say(out, "LEADER " + token.value());
                long session = session(client);
                Thread writer = new Thread(() -> write(out, gate, ds, child, token.value(), session), "writer");
                writer.setDaemon(true);
                writer.start();
            }

            @Override
            public void leadershipLost(FencingToken token) {
                say(out, "LOST " + token.value());
            }
        });
        latch.start();
        say(out, "JOINED " + ProcessHandle.current().pid());
        QUIESCENCE.obey(System.in, line -> say(out, line));
        System.exit(0); // stdin closed: the scenario's JVM is gone
    }

    /** The writer's transactions, held back while the scenario stops this JVM between them. */
    private static final Quiescence QUIESCENCE = new Quiescence();

    private static void write(
            PrintStream out, FenceGate gate, DataSource ds, ChildArgs child, long token, long session) {
        try {
            if (child.fenced()) {
                QUIESCENCE.transaction(
                        () -> RetryingGate.advance(gate, child.resource(), token, text -> say(out, "RETRY " + text)));
                say(out, "FENCED " + token);
            }
            for (int seq = 1; ; seq++) {
                Thread.sleep(250); // the pace of the leader's work
                HistoryTable.Write row = new HistoryTable.Write(child.resource(), child.id(), token, seq, session);
                QUIESCENCE.transaction(() -> {
                    if (child.fenced()) {
                        RetryingGate.write(
                                gate,
                                child.resource(),
                                token,
                                tx -> HistoryTable.insert(tx, child.prefix(), row),
                                text -> say(out, "RETRY " + text));
                    } else {
                        try (Connection c = ds.getConnection()) {
                            HistoryTable.insert(c, child.prefix(), row);
                        }
                    }
                });
                say(out, "WROTE " + token + " " + seq);
            }
        } catch (StaleTokenException e) {
            say(out, "REJECTED " + e.offeredToken() + " " + e.highestToken());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            say(out, "FAILED " + e.getMessage().replace('\n', ' '));
        }
    }

    /** The client's current ZooKeeper session, for the history row (0 if the client is closing). */
    private static long session(CuratorFramework client) {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return 0;
        }
    }

    private static void say(PrintStream out, String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }
}
