package dev.leasehold.scenarios.chaos;

import dev.leasehold.store.FenceGate;
import dev.leasehold.testkit.TcpProxy;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;

/** A participant in the campaign's JVM; a pause freezes its worker (after its leadership check) and silences it. */
final class LocalParticipant extends Participant {

    private final CuratorFramework client;
    private final Member member;
    private volatile CountDownLatch frozen;

    LocalParticipant(String id, boolean selector, Setting setting, FenceGate gate) throws IOException {
        super(id, selector, setting);
        client = TcpProxy.clientBuilder(connectString(), ChaosCampaign.SESSION_MS)
                .build();
        ChaosCampaign.Config config = setting.config();
        member = new Member(
                client,
                gate,
                Member.Config.of(id, selector, path(), resource(), setting.prefix())
                        .withUnfenced(config.unfenced() ? config.database().dataSource() : null)
                        .withBeforeEachWrite(this::holdIfFrozen),
                events());
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
