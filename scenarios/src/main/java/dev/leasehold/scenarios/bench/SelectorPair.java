package dev.leasehold.scenarios.bench;

import dev.leasehold.recipes.FencedLeaderSelector;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;

/**
 * Plain LeaderSelector or FencedLeaderSelector: end the leader's work, time until the next one's work starts.
 *
 * <p>Thread-safety: driven by the bench's one thread; the selectors' work threads only queue and wait.
 */
final class SelectorPair implements HandoffBench.Pair {
    private final String path;
    private final CuratorFramework client0;
    private final List<AtomicReference<CountDownLatch>> release =
            List.of(new AtomicReference<>(), new AtomicReference<>());
    private final BlockingQueue<Integer> started = new LinkedBlockingQueue<>();
    private volatile boolean stopped;
    private int leader;

    SelectorPair(ElectionBench bench, boolean fenced) throws Exception {
        this.path = bench.path("handoff-selector");
        this.client0 = bench.client(bench.env.zkConnect());
        for (int i = 0; i < 2; i++) {
            int me = i;
            CuratorFramework client = i == 0 ? client0 : bench.client(bench.env.zkConnect());
            if (fenced) {
                FencedLeaderSelector selector = new FencedLeaderSelector(client, path, "s" + i, (c, token) -> work(me));
                selector.autoRequeue();
                selector.start();
                bench.closeLater(selector);
            } else {
                LeaderSelector selector = new LeaderSelector(client, path, new LeaderSelectorListenerAdapter() {
                    @Override
                    public void takeLeadership(CuratorFramework c) throws Exception {
                        work(me);
                    }
                });
                selector.setId("s" + i);
                selector.autoRequeue();
                selector.start();
                bench.closeLater(selector);
            }
            if (i == 0) {
                leader = next();
            }
        }
        ElectionBench.awaitChildren(client0, path, 2);
        bench.releaseFirst(() -> {
            stopped = true;
            release.forEach(r -> {
                if (r.get() != null) {
                    r.get().countDown();
                }
            });
        });
    }

    private void work(int me) throws InterruptedException {
        if (stopped) {
            return;
        }
        CountDownLatch done = new CountDownLatch(1);
        release.get(me).set(done);
        started.add(me);
        done.await();
    }

    private int next() throws InterruptedException {
        Integer who = started.poll(ElectionBench.WAIT_MS, TimeUnit.MILLISECONDS);
        if (who == null) {
            throw new IllegalStateException("no selector took leadership within " + ElectionBench.WAIT_MS + " ms");
        }
        return who;
    }

    @Override
    public long handoff() throws Exception {
        long start = System.nanoTime();
        release.get(leader).get().countDown();
        int now = next();
        long took = System.nanoTime() - start;
        if (now == leader) {
            throw new IllegalStateException("the released selector led again: the other was not queued");
        }
        ElectionBench.awaitChildren(client0, path, 2);
        leader = now;
        return took;
    }
}
