package dev.leasehold.scenarios;

import dev.leasehold.recipes.FencedLeaderLatch;
import dev.leasehold.recipes.FencedLeaderListener;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.StaleTokenException;
import dev.leasehold.store.StoreConfig;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;

/**
 * One participant of the {@code real-pause} scenario, run as its own JVM so that {@code kill -STOP} freezes all of
 * it. It joins the election; when it leads it fences the resource and then writes every 250 ms with its token until
 * the resource refuses (a naive loop that never re-checks leadership, as code in a long GC pause never can). With
 * {@code unfenced} it writes straight to the table, without the gate. It reports on stdout, one line per event.
 *
 * <p>Arguments: zk, jdbc-url, user (or "-"), password (or "-"), election path, id, table prefix, fenced|unfenced.
 */
public final class PauseChild {

    private PauseChild() {}

    public static void main(String[] args) throws Exception {
        String zk = args[0];
        String url = args[1];
        String user = args[2].equals("-") ? null : args[2];
        String password = args[3].equals("-") ? null : args[3];
        String path = args[4];
        String id = args[5];
        String prefix = args[6];
        boolean fenced = args[7].equals("fenced");
        PrintStream out = System.out;
        DataSource ds = new SimpleDataSource(url, user, password);
        FenceGate gate = new FenceGate(ds, StoreConfig.defaults().withTablePrefix(prefix));
        CuratorFramework client = CuratorFrameworkFactory.builder().connectString(zk).sessionTimeoutMs(Env.SESSION_MS)
                .connectionTimeoutMs(Env.SESSION_MS).retryPolicy(new RetryNTimes(10, 100)).build();
        client.start();
        FencedLeaderLatch latch = new FencedLeaderLatch(client, path, id);
        latch.addListener(new FencedLeaderListener() {
            @Override
            public void leadershipAcquired(FencingToken token) {
                say(out, "LEADER " + token.value());
                Thread writer = new Thread(() -> write(out, gate, ds, prefix, id, token.value(), fenced), "writer");
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
        new CountDownLatch(1).await(); // runs until the scenario kills it
    }

    private static void write(PrintStream out, FenceGate gate, DataSource ds, String prefix, String id, long token,
                              boolean fenced) {
        try {
            if (fenced) {
                gate.advance("ledger", token);
                say(out, "FENCED " + token);
            }
            for (int seq = 1; ; seq++) {
                Thread.sleep(250); // the pace of the leader's work
                int n = seq;
                if (fenced) {
                    gate.write("ledger", token, tx -> insert(tx, prefix, id, token, n));
                } else {
                    try (Connection c = ds.getConnection()) {
                        insert(c, prefix, id, token, n);
                    }
                }
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

    private static void insert(Connection c, String prefix, String id, long token, int seq) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("INSERT INTO " + prefix + "ledger (participant, token, seq)"
                + " VALUES (?, ?, ?)")) {
            p.setString(1, id);
            p.setLong(2, token);
            p.setInt(3, seq);
            p.executeUpdate();
        }
    }

    private static void say(PrintStream out, String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }
}
