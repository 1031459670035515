package dev.leasehold.scenarios.bench;

import dev.leasehold.recipes.FencedPartitionListener;
import dev.leasehold.recipes.FencedPartitions;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.recipes.LossCause;
import dev.leasehold.testkit.Ensemble;
import dev.leasehold.testkit.TcpProxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.retry.RetryNTimes;

/**
 * {@code bench partitions}: rebalancing {@code FencedPartitions} after a join, a graceful leave and a crash, at 12,
 * 120 and 1,200 partitions and 3 and 10 members, on an embedded 3-server ensemble; against the naive Curator way (one
 * {@code LeaderLatch} per partition per member), measured on the same ensemble, each member behind its own proxy so
 * that requests and watch notifications are counted on the wire.
 *
 * <p>A "rebalance" ends when every partition is held by exactly one member and the holders are balanced (ours) or
 * every partition has a leader again (naive, which never balances). A crash is a client closed without the recipe's
 * close (the server ends the session at once): the time counted is what the others take once the session is gone,
 * not the session timeout before it.
 */
final class PartitionsBench {

    private static final int SESSION_MS = 20_000;
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(120);

    private final boolean quick;

    PartitionsBench(boolean quick) {
        this.quick = quick;
    }

    /** One member: its client behind its own proxy. */
    private record Member(CuratorFramework client, TcpProxy proxy) {}

    /** Who holds how much, told by every member's listener; waited on with wait/notify. */
    private static final class Holdings implements AutoCloseable {
        private final int[] holder;
        private final AtomicLong moved = new AtomicLong();

        Holdings(int partitions) {
            holder = new int[partitions];
            java.util.Arrays.fill(holder, -1);
        }

        FencedPartitionListener listener(int member) {
            return new FencedPartitionListener() {
                @Override
                public void acquired(int partition, FencingToken token) {
                    moved.incrementAndGet(); // during a measured change, every acquisition is a partition that moved
                    synchronized (Holdings.this) {
                        holder[partition] = member;
                        Holdings.this.notifyAll();
                    }
                }

                @Override
                public void lost(int partition, FencingToken token, LossCause cause) {
                    synchronized (Holdings.this) {
                        if (holder[partition] == member) {
                            holder[partition] = -1;
                        }
                        Holdings.this.notifyAll();
                    }
                }
            };
        }

        synchronized void awaitBalanced(List<Integer> live) throws InterruptedException {
            long deadline = System.nanoTime() + WAIT_NANOS;
            while (!balanced(live)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("the partitions did not balance over members " + live);
                }
                TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
            }
        }

        private boolean balanced(List<Integer> live) {
            int[] count = new int[64];
            for (int h : holder) {
                if (h < 0 || !live.contains(h)) {
                    return false;
                }
                count[h]++;
            }
            int min = holder.length / live.size();
            int max = (holder.length + live.size() - 1) / live.size();
            return live.stream().allMatch(m -> count[m] >= min && count[m] <= max);
        }

        @Override
        public void close() {}
    }

    /** What one rebalance cost. */
    record Cost(long nanos, long requests, long notifications, long moved) {}

    /** The three rebalances (join, leave, crash), ours and the naive way's, at one size. */
    record Comparison(Cost[] ours, Cost[] naive) {
        /** @return how many times fewer requests ours made than the naive way, for change {@code i} */
        double ratio(int i) {
            return naive[i].requests() / (double) Math.max(1, ours[i].requests());
        }
    }

    /** Measures the three rebalances at one size, ours then the naive way's, on the ensemble at {@code connect}. */
    static Comparison compare(String connect, int partitions, int members) throws Exception {
        return new Comparison(ours(connect, partitions, members), naive(connect, partitions, members));
    }

    List<Row> run() throws Exception {
        List<Row> rows = new ArrayList<>();
        try (Ensemble ensemble = Ensemble.start(3, 1_000)) {
            String connect = ensemble.connectString().toString();
            long rtt = roundTrip(connect);
            for (int partitions : quick ? new int[] {12} : new int[] {12, 120, 1_200}) {
                for (int members : quick ? new int[] {3} : new int[] {3, 10}) {
                    Comparison comparison = compare(connect, partitions, members);
                    Cost[] ours = comparison.ours();
                    Cost[] naive = comparison.naive();
                    String[] events = {"join", "leave", "crash"};
                    for (int i = 0; i < 3; i++) {
                        String what = events[i] + ", " + partitions + " partitions, " + members + " members";
                        double ratio = comparison.ratio(i);
                        rows.add(row("naive: a LeaderLatch per partition per member, " + what, naive[i], ""));
                        String goal = "";
                        if (partitions >= 1_200 && i < 2) {
                            long bound = TimeUnit.SECONDS.toNanos(1) + ours[i].moved() * rtt;
                            goal = ElectionBench.goal(
                                    ours[i].nanos() <= bound,
                                    String.format("< 1 s + %d moved x %.2f ms round trip", ours[i].moved(), rtt / 1e6));
                        }
                        if (members == 10) {
                            goal += (goal.isEmpty() ? "" : "; ")
                                    + ElectionBench.goal(ratio >= 10, ">= 10x fewer requests");
                        }
                        rows.add(row("FencedPartitions, " + what, ours[i], String.format("%.1fx fewer requests", ratio))
                                .compared(String.format("%.1fx fewer requests", ratio), goal));
                    }
                }
            }
        }
        return rows;
    }

    private static Row row(String variant, Cost cost, String ratio) {
        return new Row(
                "partitions",
                variant,
                1,
                Row.millis(cost.nanos()),
                cost.requests() + " requests",
                cost.notifications() + " notifications",
                ratio,
                cost.moved() >= 0 ? cost.moved() + " moved" : "");
    }

    /** Join a member to members-1, close one gracefully, crash one: the cost of each rebalance. */
    private static Cost[] ours(String connect, int partitions, int members) throws Exception {
        String path = "/bench-partitions/ours-" + partitions + "-" + members + "-" + System.nanoTime();
        Holdings holdings = new Holdings(partitions);
        List<Member> all = new ArrayList<>();
        List<FencedPartitions> recipes = new ArrayList<>();
        List<Integer> live = new ArrayList<>();
        try {
            for (int i = 0; i < members; i++) {
                Member m = member(connect);
                all.add(m);
                recipes.add(new FencedPartitions(m.client(), path, "m" + i, partitions, holdings.listener(i)));
            }
            for (int i = 0; i < members - 1; i++) {
                recipes.get(i).start();
                live.add(i);
            }
            holdings.awaitBalanced(live);
            Cost join = measure(all, holdings, () -> {
                recipes.get(members - 1).start();
                live.add(members - 1);
                holdings.awaitBalanced(live);
            });
            Cost leave = measure(all, holdings, () -> {
                recipes.get(members - 1).close();
                live.remove(Integer.valueOf(members - 1));
                holdings.awaitBalanced(live);
            });
            int crashed = members - 2;
            Cost crash = measure(all, holdings, () -> {
                all.get(crashed).client().close(); // no recipe close: the session ends, its nodes go
                live.remove(Integer.valueOf(crashed));
                holdings.awaitBalanced(live);
            });
            return new Cost[] {join, leave, crash};
        } finally {
            recipes.forEach(FencedPartitions::close);
            close(all);
        }
    }

    /** The same three changes with one plain LeaderLatch per partition per member. */
    private static Cost[] naive(String connect, int partitions, int members) throws Exception {
        String path = "/bench-partitions/naive-" + partitions + "-" + members + "-" + System.nanoTime();
        List<Member> all = new ArrayList<>();
        List<List<LeaderLatch>> latches = new ArrayList<>();
        CuratorFramework reader = null;
        try {
            for (int i = 0; i < members; i++) {
                Member m = member(connect);
                all.add(m);
                List<LeaderLatch> mine = new ArrayList<>();
                for (int p = 0; p < partitions; p++) {
                    mine.add(new LeaderLatch(m.client(), path + "/" + p, "m" + i));
                }
                latches.add(mine);
            }
            List<Integer> live = new ArrayList<>();
            for (int i = 0; i < members - 1; i++) {
                for (LeaderLatch latch : latches.get(i)) {
                    latch.start();
                }
                live.add(i);
            }
            reader = TcpProxy.clientBuilder(connect, SESSION_MS)
                    .build(); // not behind a proxy: its reads are not counted
            reader.start();
            reader.blockUntilConnected(30, TimeUnit.SECONDS);
            CuratorFramework counted = reader;
            awaitLeaders(latches, live, partitions, path, reader);
            Cost join = measure(all, null, () -> {
                for (LeaderLatch latch : latches.get(members - 1)) {
                    latch.start();
                }
                live.add(members - 1);
                awaitLeaders(latches, live, partitions, path, counted);
            });
            Cost leave = measure(all, null, () -> {
                for (LeaderLatch latch : latches.get(members - 1)) {
                    latch.close();
                }
                live.remove(Integer.valueOf(members - 1));
                awaitLeaders(latches, live, partitions, path, counted);
            });
            int crashed = members - 2;
            Cost crash = measure(all, null, () -> {
                all.get(crashed).client().close();
                live.remove(Integer.valueOf(crashed));
                awaitLeaders(latches, live, partitions, path, counted);
            });
            return new Cost[] {join, leave, crash};
        } finally {
            for (List<LeaderLatch> mine : latches) {
                for (LeaderLatch latch : mine) {
                    try {
                        latch.close();
                    } catch (Exception | Error ignored) {
                        // its client may be closed (the crashed member)
                    }
                }
            }
            if (reader != null) {
                reader.close();
            }
            close(all);
        }
    }

    /** Every partition has exactly {@code participants} latch nodes and a latch that says it leads. */
    private static void awaitLeaders(
            List<List<LeaderLatch>> latches, List<Integer> live, int partitions, String path, CuratorFramework reader)
            throws Exception {
        long deadline = System.nanoTime() + WAIT_NANOS;
        for (int p = 0; p < partitions; p++) {
            while (true) {
                int partition = p;
                boolean led = live.stream().anyMatch(i -> {
                    LeaderLatch latch = latches.get(i).get(partition);
                    return latch.getState() == LeaderLatch.State.STARTED && latch.hasLeadership();
                });
                if (led && reader.getChildren().forPath(path + "/" + p).size() == live.size()) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("partition " + p + " has no leader");
                }
                Thread.sleep(1); // polls the latches' state (they offer no wait for "leads"); the reads cost the reader
            }
        }
    }

    interface Change {
        void run() throws Exception;
    }

    private static Cost measure(List<Member> all, Holdings holdings, Change change) throws Exception {
        long requests = all.stream().mapToLong(m -> m.proxy().requests()).sum();
        long notifications =
                all.stream().mapToLong(m -> m.proxy().watchNotifications()).sum();
        long moved = holdings == null ? -1 : holdings.moved.get();
        long start = System.nanoTime();
        change.run();
        long nanos = System.nanoTime() - start;
        return new Cost(
                nanos,
                all.stream().mapToLong(m -> m.proxy().requests()).sum() - requests,
                all.stream().mapToLong(m -> m.proxy().watchNotifications()).sum() - notifications,
                holdings == null ? -1 : holdings.moved.get() - moved);
    }

    private static Member member(String connect) throws Exception {
        TcpProxy proxy = TcpProxy.to(connect);
        CuratorFramework client = TcpProxy.clientBuilder(proxy.connectString(), SESSION_MS)
                .retryPolicy(new RetryNTimes(10, 100))
                .build();
        client.start();
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("could not connect to " + connect);
        }
        return new Member(client, proxy);
    }

    private static void close(List<Member> all) throws Exception {
        for (Member m : all) {
            m.client().close();
            m.proxy().close();
        }
    }

    /** The median of 21 getData round trips on one client. */
    private static long roundTrip(String connect) throws Exception {
        Member m = member(connect);
        try {
            m.client().checkExists().forPath("/");
            long[] samples = new long[21];
            for (int i = 0; i < samples.length; i++) {
                long start = System.nanoTime();
                m.client().getData().forPath("/zookeeper");
                samples[i] = System.nanoTime() - start;
            }
            java.util.Arrays.sort(samples);
            return samples[samples.length / 2];
        } finally {
            close(List.of(m));
        }
    }
}
