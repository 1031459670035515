package dev.leasehold.scenarios.chaos;

import dev.leasehold.store.FenceGate;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;

/** A participant in the campaign's JVM; a pause freezes its worker (after its leadership check) and silences it. */
final class LocalParticipant extends Participant {

    private final CuratorFramework client;
    private final Member member;
    private volatile CountDownLatch frozen;

    LocalParticipant(String id, boolean selector, Setting setting, FenceGate gate) throws IOException {
        super(id, selector, setting);
        // ensembleTracker(false): Curator would otherwise replace the proxies' addresses with the servers' own
        // (read from /zookeeper/config), bypass the proxies, and no partition would ever expire a session.
        client = CuratorFrameworkFactory.builder().connectString(connectString()).ensembleTracker(false)
                .sessionTimeoutMs(ChaosCampaign.SESSION_MS).connectionTimeoutMs(ChaosCampaign.SESSION_MS)
                .retryPolicy(new RetryNTimes(5, 200)).build();
        ChaosCampaign.Config config = setting.config();
        member = new Member(client, gate, config.unfenced() ? config.database().dataSource() : null, historyTable(),
                id, selector, path(), resource(), events(), this::holdIfFrozen);
    }

    @Override
    void start() {
        client.start();
        member.start();
    }

    @Override
    String pauseKind() {
        return "worker frozen after its token, connection silent";
    }

    @Override
    void pause() {
        frozen = new CountDownLatch(1);
        silence();
    }

    @Override
    void unpause() {
        resume();
        CountDownLatch hold = frozen;
        frozen = null;
        if (hold != null) {
            hold.countDown();
        }
    }

    @Override
    void expireOnClient() throws Exception {
        client.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
    }

    /** A frozen worker waits here, between its leadership check and its next write, deaf to interrupts. */
    private void holdIfFrozen() {
        CountDownLatch hold = frozen;
        if (hold == null) {
            return;
        }
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (hold.getCount() > 0 && System.nanoTime() < deadline) {
            try {
                hold.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        unpause();
        member.close();
        client.close();
        endAllBeliefs();
        closeProxies();
    }
}
