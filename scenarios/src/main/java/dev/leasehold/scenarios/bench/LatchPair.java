package dev.leasehold.scenarios.bench;

import dev.leasehold.recipes.FencedLeaderLatch;
import dev.leasehold.recipes.FencedLeaderListener;
import dev.leasehold.recipes.FencingToken;
import java.io.Closeable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;

/**
 * Plain LeaderLatch (its listener on ZooKeeper's event thread, Curator's default, or on an executor of its own, as
 * ZooKeeper's facts advise) or FencedLeaderLatch: close the leader, time until the other is told it leads.
 *
 * <p>Thread-safety: driven by the bench's one thread; the listeners only count down latches.
 */
final class LatchPair implements HandoffBench.Pair {
    private final ElectionBench bench;
    private final boolean fenced;
    private final ExecutorService listenerExecutor;
    private final String path;
    private final CuratorFramework[] clients;
    private final Closeable[] latches = new Closeable[2];
    private final AtomicReference<CountDownLatch>[] acquired = newRefs();
    private int leader;

    @SuppressWarnings("unchecked")
    private static AtomicReference<CountDownLatch>[] newRefs() {
        return (AtomicReference<CountDownLatch>[]) new AtomicReference<?>[] {
            new AtomicReference<>(new CountDownLatch(1)), new AtomicReference<>(new CountDownLatch(1))
        };
    }

    LatchPair(ElectionBench bench, boolean fenced) throws Exception {
        this(bench, fenced, false);
    }

    LatchPair(ElectionBench bench, boolean fenced, boolean listenerOnExecutor) throws Exception {
        this.bench = bench;
        this.path = bench.path("handoff-latch");
        this.clients =
                new CuratorFramework[] {bench.client(bench.env.zkConnect()), bench.client(bench.env.zkConnect())};
        this.fenced = fenced;
        this.listenerExecutor = listenerOnExecutor
                ? Executors.newSingleThreadExecutor(r -> {
                    Thread thread = new Thread(r, "bench-listener");
                    thread.setDaemon(true);
                    return thread;
                })
                : null;
        if (listenerExecutor != null) {
            bench.closeLater(listenerExecutor::shutdownNow);
        }
        join(0);
        ElectionBench.await(acquired[0].get(), "the first leader");
        join(1);
        ElectionBench.awaitChildren(clients[0], path, 2);
        leader = 0;
    }

    private void join(int i) throws Exception {
        acquired[i].set(new CountDownLatch(1));
        CountDownLatch told = acquired[i].get();
        if (fenced) {
            FencedLeaderLatch latch = new FencedLeaderLatch(clients[i], path, "p" + i);
            latch.addListener(new FencedLeaderListener() {
                @Override
                public void leadershipAcquired(FencingToken token) {
                    told.countDown();
                }

                @Override
                public void leadershipLost(FencingToken token) {}
            });
            latch.start();
            latches[i] = latch;
        } else {
            LeaderLatch latch = new LeaderLatch(clients[i], path, "p" + i);
            LeaderLatchListener listener = new LeaderLatchListener() {
                @Override
                public void isLeader() {
                    told.countDown();
                }

                @Override
                public void notLeader() {}
            };
            if (listenerExecutor != null) {
                latch.addListener(listener, listenerExecutor);
            } else {
                latch.addListener(listener);
            }
            latch.start();
            latches[i] = latch;
        }
    }

    @Override
    public long handoff() throws Exception {
        int next = 1 - leader;
        long start = System.nanoTime();
        latches[leader].close();
        ElectionBench.await(acquired[next].get(), "the next leader");
        long took = System.nanoTime() - start;
        join(leader);
        ElectionBench.awaitChildren(clients[next], path, 2);
        leader = next;
        return took;
    }
}
