package dev.leasehold.scenarios.chaos;

import dev.leasehold.store.FenceGate;
import dev.leasehold.testkit.TcpProxy;
import java.io.IOException;
import org.apache.curator.framework.CuratorFramework;

/** A participant in the campaign's JVM; a pause freezes its worker (after its leadership check) and silences it. */
final class LocalParticipant extends InJvmParticipant {

    private final CuratorFramework client;
    private final Member member;

    LocalParticipant(String id, boolean selector, Setting setting, FenceGate gate) throws IOException {
        super(id, selector, setting);
        client = TcpProxy.clientBuilder(connectString(), ChaosCampaign.SESSION_MS)
                .build();
        ChaosCampaign.Config config = setting.config();
        member = new Member(
                client,
                gate,
                Member.Config.of(
                                id,
                                selector,
                                path(),
                                resource(),
                                setting.prefix(),
                                config.database().dataSource())
                        .withUnfenced(config.unfenced())
                        .withBeforeEachWrite(freezer::holdIfFrozen),
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
    void expireOnClient() throws Exception {
        client.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
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
