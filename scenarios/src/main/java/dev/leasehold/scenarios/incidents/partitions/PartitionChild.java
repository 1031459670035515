package dev.leasehold.scenarios.incidents.partitions;

import dev.leasehold.recipes.FencedPartitionListener;
import dev.leasehold.recipes.FencedPartitions;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.recipes.LossCause;
import dev.leasehold.scenarios.chaos.ChildArgs;
import dev.leasehold.scenarios.incidents.Quiescence;
import dev.leasehold.scenarios.incidents.RetryingGate;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.StaleTokenException;
import dev.leasehold.testkit.HistoryTable;
import dev.leasehold.testkit.SimpleDataSource;
import dev.leasehold.testkit.TcpProxy;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.CreateMode;

/**
 * One instance of the {@code partitioned-billing} scenario, run as its own JVM so that {@code kill -STOP} freezes all
 * of it. It bills the customers of the partitions it owns: per partition, a worker charges the next billing period
 * every 250 ms, counting periods in memory from the last one charged when it took the partition (as billing code
 * that keeps its progress does).
 *
 * <p>Fenced: ownership from {@link FencedPartitions}; the worker fences the partition's resource first, then charges
 * through {@link FenceGate} with the partition's token. Unfenced: ownership from a plain rendezvous hash of the
 * member list (every instance watches the list), charges written straight to the table.
 *
 * <p>Reports on stdout: {@code JOINED pid}, {@code ACQUIRED p token}, {@code LOST p token cause}, {@code CHARGED p
 * token period}, {@code REJECTED p token highest}, {@code RETRY p text} (a retryable advance or write, retried),
 * {@code QUIET} (see below). Arguments: {@link ChildArgs} (the resource is the prefix of the partitions' resources).
 *
 * <p>Reads commands on stdin: {@code QUIESCE} (hold new database transactions back, wait until none is in flight,
 * then say {@code QUIET}: the scenario stops it between transactions where the database cannot end an idle one) and
 * {@code RESUME}; it exits when stdin closes (the scenario's JVM is gone).
 */
public final class PartitionChild {

    private final ChildArgs args;
    private final PrintStream out = System.out;
    private final DataSource ds;
    private final FenceGate gate;
    private final Map<Integer, AtomicBoolean> running = new ConcurrentHashMap<>();
    private final Quiescence quiescence = new Quiescence();

    private PartitionChild(ChildArgs args) {
        this.args = args;
        this.ds = new SimpleDataSource(args.jdbcUrl(), args.user(), args.password());
        this.gate = new FenceGate(ds, RetryingGate.config(args.prefix()));
    }

    public static void main(String[] argv) throws Exception {
        ChildArgs args = ChildArgs.parse(argv);
        PartitionChild child = new PartitionChild(args);
        CuratorFramework client = TcpProxy.clientBuilder(args.zk(), args.sessionMs())
                .retryPolicy(new RetryNTimes(10, 100))
                .build();
        client.start();
        if (args.fenced()) {
            child.fenced(client);
        } else {
            child.rendezvous(client);
        }
        child.say("JOINED " + ProcessHandle.current().pid());
        child.obey();
        System.exit(0); // stdin closed: the scenario's JVM is gone
    }

    /** The scenario's commands on stdin, until it closes: {@code QUIESCE} (answered {@code QUIET}), {@code RESUME}. */
    private void obey() throws IOException {
        quiescence.obey(System.in, this::say);
    }

    private void fenced(CuratorFramework client) throws Exception {
        FencedPartitions partitions = new FencedPartitions(
                client, args.path(), args.id(), PartitionedBillingScenario.PARTITIONS, new FencedPartitionListener() {
                    @Override
                    public void acquired(int partition, FencingToken token) {
                        say("ACQUIRED " + partition + " " + token.value());
                        startWorker(partition, token.value());
                    }

                    @Override
                    public void lost(int partition, FencingToken token, LossCause cause) {
                        AtomicBoolean worker = running.remove(partition);
                        if (worker != null) {
                            worker.set(false);
                        }
                        say("LOST " + partition + " " + token.value() + " " + cause);
                    }
                });
        partitions.start();
    }

    /** The broken way: every instance owns the partitions whose rendezvous hash ranks it first among the members. */
    private void rendezvous(CuratorFramework client) throws Exception {
        String members = args.path() + "/members";
        client.create()
                .creatingParentsIfNeeded()
                .withMode(CreateMode.EPHEMERAL)
                .forPath(members + "/" + args.id(), args.id().getBytes(StandardCharsets.UTF_8));
        CuratorWatcher[] watcher = new CuratorWatcher[1];
        watcher[0] =
                event -> rebalance(client.getChildren().usingWatcher(watcher[0]).forPath(members));
        rebalance(client.getChildren().usingWatcher(watcher[0]).forPath(members));
    }

    private synchronized void rebalance(List<String> members) {
        for (int p = 0; p < PartitionedBillingScenario.PARTITIONS; p++) {
            int partition = p;
            String first = members.stream()
                    .max((x, y) -> Long.compare(weight(partition, x), weight(partition, y)))
                    .orElse(null);
            boolean mine = args.id().equals(first);
            if (mine && !running.containsKey(p)) {
                say("ACQUIRED " + p + " 0");
                startWorker(p, 0);
            } else if (!mine && running.containsKey(p)) {
                running.remove(p).set(false);
                say("LOST " + p + " 0 REBALANCED");
            }
        }
    }

    static long weight(int partition, String member) {
        long h = (member.hashCode() * 0x9E3779B97F4A7C15L) ^ (partition + 1L) * 0xBF58476D1CE4E5B9L;
        h ^= h >>> 31;
        return h * 0x94D049BB133111EBL;
    }

    private void startWorker(int partition, long token) {
        AtomicBoolean flag = new AtomicBoolean(true);
        running.put(partition, flag);
        Thread worker = new Thread(() -> work(partition, token, flag), "billing-" + partition);
        worker.setDaemon(true);
        worker.start();
    }

    /** Fence first, read where billing stands, then charge the next period every 250 ms while the flag is set. */
    private void work(int partition, long token, AtomicBoolean flag) {
        String resource = PartitionedBillingScenario.resource(args.resource(), partition);
        try {
            if (args.fenced()) {
                quiescence.transaction(() -> RetryingGate.advance(gate, resource, token, retries(partition)));
            }
            long period = lastPeriod(resource);
            while (flag.get()) {
                Thread.sleep(250); // the pace of billing; a kill -STOP freezes the process anywhere, here too
                period++;
                HistoryTable.Write row = new HistoryTable.Write(resource, args.id(), token, period, 0);
                quiescence.transaction(() -> charge(resource, token, row, partition));
                say("CHARGED " + partition + " " + token + " " + period);
            }
        } catch (StaleTokenException e) {
            say("REJECTED " + partition + " " + e.offeredToken() + " " + e.highestToken());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            say("FAILED " + String.valueOf(e.getMessage()).replace('\n', ' '));
        }
    }

    private void charge(String resource, long token, HistoryTable.Write row, int partition)
            throws SQLException, InterruptedException {
        if (args.fenced()) {
            RetryingGate.write(
                    gate, resource, token, tx -> HistoryTable.insert(tx, args.prefix(), row), retries(partition));
        } else {
            try (Connection c = ds.getConnection()) {
                HistoryTable.insert(c, args.prefix(), row);
            }
        }
    }

    private RetryingGate.OnRetry retries(int partition) {
        return text -> say("RETRY " + partition + " " + text);
    }

    private long lastPeriod(String resource) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement s = c.prepareStatement("SELECT COALESCE(MAX(seq), 0) FROM "
                        + HistoryTable.name(args.prefix()) + " WHERE resource = ?")) {
            s.setString(1, resource);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private void say(String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }
}
