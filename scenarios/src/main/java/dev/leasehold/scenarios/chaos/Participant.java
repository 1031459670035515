package dev.leasehold.scenarios.chaos;

import dev.leasehold.testkit.ConnectString;
import dev.leasehold.testkit.Ensemble;
import dev.leasehold.testkit.TcpProxy;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A campaign participant: its proxies (one per ZooKeeper server, so that it can be partitioned alone) and what the
 * nemesis can do to it. In this JVM ({@link LocalParticipant}) or in its own ({@link ChildParticipant}).
 */
abstract class Participant implements Closeable {

    /** What every participant of one campaign shares. */
    record Setting(ChaosCampaign.Config config, String prefix, Ensemble ensemble, Observations observations) {}

    final String id;
    final boolean selector;
    final Setting setting;
    private final List<TcpProxy> proxies = new ArrayList<>();

    Participant(String id, boolean selector, Setting setting) throws IOException {
        this.id = id;
        this.selector = selector;
        this.setting = setting;
        if (setting.ensemble() != null) { // null: a lease election, no ZooKeeper
            for (ConnectString.Server server :
                    setting.ensemble().connectString().servers()) {
                proxies.add(new TcpProxy(server.host(), server.port()));
            }
        }
    }

    String connectString() {
        return proxies.stream().map(TcpProxy::connectString).collect(Collectors.joining(","))
                + setting.ensemble().connectString().chroot();
    }

    String election() {
        return Member.election(selector);
    }

    String path() {
        return "/chaos/" + setting.prefix() + election();
    }

    String resource() {
        return ChaosCampaign.RESOURCE + election();
    }

    Member.Events events() {
        return setting.observations().eventsOf(id, election());
    }

    /** It believes nothing any more (its JVM was killed, or it was closed). */
    void endAllBeliefs() {
        setting.observations().endAll(id);
    }

    boolean leading() {
        return setting.observations().leading(id);
    }

    abstract void start() throws Exception;

    void awaitJoined() throws InterruptedException {}

    void silence() {
        proxies.forEach(TcpProxy::silence);
    }

    void resume() {
        proxies.forEach(TcpProxy::resume);
    }

    abstract String pauseKind();

    abstract void pause() throws Exception;

    abstract void unpause() throws Exception;

    abstract void expireOnClient() throws Exception;

    /**
     * Holds its leader work before its next write, nothing else: it keeps its leadership (a slow leader, not a
     * paused one). For the failover that must let a paused old leader write first.
     */
    void holdWork() {
        throw new UnsupportedOperationException("only a participant in this JVM can hold its work");
    }

    /** Lets the work {@link #holdWork()} held go on. */
    void releaseWork() {
        throw new UnsupportedOperationException("only a participant in this JVM can hold its work");
    }

    void crashAndRestart() throws Exception {
        throw new UnsupportedOperationException("only a participant in its own JVM can be crashed");
    }

    /** Ends its JVM at once, if it has one (on this JVM's exit). */
    void kill() {}

    void closeProxies() {
        for (TcpProxy proxy : proxies) {
            try {
                proxy.close();
            } catch (IOException ignored) {
                // best effort: the campaign is over
            }
        }
    }
}
