package dev.leasehold.scenarios.bench;

import dev.leasehold.scenarios.cli.Env;
import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.apache.curator.framework.CuratorFramework;

/**
 * handoff, failover and herd: the recipes measured side by side with plain Curator on the same ensemble. Each
 * benchmark is its own class ({@link HandoffBench}, {@link FailoverBench}, {@link HerdBench}); this one owns what they
 * share: the ensemble's clients, fresh election paths, and closing everything they opened, in reverse order.
 *
 * <p>Thread-safety: used by the bench's one thread.
 */
final class ElectionBench {

    static final long WAIT_MS = 60_000;

    final Env env;
    final boolean quick;
    private final List<Closeable> closing = new ArrayList<>();
    private final List<Runnable> releaseAll = new ArrayList<>();
    private int paths;

    ElectionBench(Env env, boolean quick) {
        this.env = env;
        this.quick = quick;
    }

    List<Row> handoff() throws Exception {
        return new HandoffBench(this).run();
    }

    List<Row> failover() throws Exception {
        return new FailoverBench(this).run();
    }

    List<Row> herd() throws Exception {
        return new HerdBench(this).run();
    }

    /** A fresh election path, never used before in this run. */
    String path(String what) {
        return "/leasehold-bench/" + what + "-" + (++paths) + "-" + System.nanoTime();
    }

    /** A started client of {@code connect}, closed by {@link #close}. */
    CuratorFramework client(String connect) {
        CuratorFramework client = env.client(connect);
        closing.add(client);
        return client;
    }

    /** Closes {@code closeable} in {@link #close}, before everything registered earlier. */
    void closeLater(Closeable closeable) {
        closing.add(closeable);
    }

    /** Runs {@code release} at the start of {@link #close}: ends held leader work, so that it closes cleanly. */
    void releaseFirst(Runnable release) {
        releaseAll.add(release);
    }

    void close() {
        releaseAll.forEach(Runnable::run); // end the selectors' held work first: they then close cleanly
        for (int i = closing.size() - 1; i >= 0; i--) {
            try {
                closing.get(i).close();
            } catch (Exception ignored) {
                // best effort
            }
        }
    }

    static String goal(boolean met, String goal) {
        return (met ? "met: " : "MISSED: ") + goal;
    }

    static void await(CountDownLatch latch, String what) throws InterruptedException {
        dev.leasehold.scenarios.Latches.await(latch, WAIT_MS, what);
    }

    static void awaitChildren(CuratorFramework client, String path, int count) throws Exception {
        dev.leasehold.scenarios.Zk.awaitChildren(client, path, count, WAIT_MS);
    }
}
