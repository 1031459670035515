package dev.leasehold.scenarios.bench;

import dev.leasehold.recipes.FencedLeaderLatch;
import dev.leasehold.recipes.FencedLeaderListener;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.scenarios.cli.Env;
import dev.leasehold.testkit.TcpProxy;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;

/**
 * failover: two participants, each behind its own proxy; the leader's proxy goes silent until the other leads. Plain
 * LeaderLatch and FencedLeaderLatch, round by round; the goal is the session timeout plus one tick.
 *
 * <p>Thread-safety: used by the bench's one thread.
 */
final class FailoverBench {

    private final ElectionBench bench;

    FailoverBench(ElectionBench bench) {
        this.bench = bench;
    }

    List<Row> run() throws Exception {
        int rounds = bench.quick ? 1 : 5;
        Failover plain = new Failover(false);
        Failover fenced = new Failover(true);
        Samples plainSamples = new Samples();
        Samples fencedSamples = new Samples();
        for (int i = 0; i < rounds; i++) {
            plainSamples.add(plain.failover());
            fencedSamples.add(fenced.failover());
        }
        int session = fenced.sessionMillis();
        long bound = TimeUnit.MILLISECONDS.toNanos(session + (bench.env.embeddedZooKeeper() ? Env.TICK_MS : 2_000));
        double ratio = fencedSamples.median() / (double) plainSamples.median();
        return List.of(
                Row.durations("failover", "LeaderLatch (session " + session + " ms)", plainSamples, false),
                Row.durations("failover", "FencedLeaderLatch (session " + session + " ms)", fencedSamples, false)
                        .compared(
                                String.format("%.2f", ratio),
                                ElectionBench.goal(fencedSamples.median() <= bound, "<= session + one tick")));
    }

    /** Two participants, each behind its own proxy; the leader's proxy goes silent until the other leads. */
    private final class Failover {
        final boolean fenced;
        final String path = bench.path("failover");
        final TcpProxy[] proxies = new TcpProxy[2];
        final CuratorFramework[] clients = new CuratorFramework[2];
        final List<BlockingQueue<Boolean>> told = List.of(new LinkedBlockingQueue<>(), new LinkedBlockingQueue<>());
        int leader;

        Failover(boolean fenced) throws Exception {
            this.fenced = fenced;
            for (int i = 0; i < 2; i++) {
                proxies[i] = TcpProxy.to(bench.env.zkConnect());
                bench.closeLater(proxies[i]);
                clients[i] = bench.client(proxies[i].connectString());
                join(i);
                if (i == 0) {
                    take(0);
                }
            }
            ElectionBench.awaitChildren(clients[0], path, 2);
        }

        int sessionMillis() throws Exception {
            return clients[0].getZookeeperClient().getZooKeeper().getSessionTimeout();
        }

        private void join(int i) {
            if (fenced) {
                FencedLeaderLatch latch = new FencedLeaderLatch(clients[i], path, "p" + i);
                latch.addListener(new FencedLeaderListener() {
                    @Override
                    public void leadershipAcquired(FencingToken token) {
                        told.get(i).add(true);
                    }

                    @Override
                    public void leadershipLost(FencingToken token) {}
                });
                latch.start();
                bench.closeLater(latch);
            } else {
                LeaderLatch latch = new LeaderLatch(clients[i], path, "p" + i);
                latch.addListener(new LeaderLatchListener() {
                    @Override
                    public void isLeader() {
                        told.get(i).add(true);
                    }

                    @Override
                    public void notLeader() {}
                });
                try {
                    latch.start();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                bench.closeLater(latch);
            }
        }

        private void take(int i) throws InterruptedException {
            if (told.get(i).poll(ElectionBench.WAIT_MS, TimeUnit.MILLISECONDS) == null) {
                throw new IllegalStateException(
                        "p" + i + " was not told it leads within " + ElectionBench.WAIT_MS + " ms");
            }
        }

        long failover() throws Exception {
            int next = 1 - leader;
            long start = System.nanoTime();
            proxies[leader].silence();
            take(next);
            long took = System.nanoTime() - start;
            proxies[leader].resume();
            ElectionBench.awaitChildren(clients[next], path, 2); // the silenced one is back, behind the new leader
            told.get(leader).clear();
            leader = next;
            return took;
        }
    }
}
