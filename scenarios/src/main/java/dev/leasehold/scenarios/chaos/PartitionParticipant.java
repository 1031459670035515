package dev.leasehold.scenarios.chaos;

import dev.leasehold.recipes.FencedPartitionListener;
import dev.leasehold.recipes.FencedPartitions;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.recipes.LossCause;
import dev.leasehold.store.FenceGate;
import dev.leasehold.testkit.TcpProxy;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.apache.curator.framework.CuratorFramework;

/**
 * A member of the campaign's partition group ({@link FencedPartitions}), in the campaign's JVM: each partition is an
 * election of its own ({@code partition-<p>}) and a resource of its own, fenced per partition; while it owns a
 * partition, a worker of that partition writes through the gate. A pause freezes every worker of it after its
 * leadership check and silences its connection, so its partitions move and its workers' next writes come late.
 */
final class PartitionParticipant extends InJvmParticipant {

    private final CuratorFramework client;
    private final FencedPartitions partitions;
    private final FenceGate gate;
    private final List<Thread> workers = new CopyOnWriteArrayList<>();
    /** Per partition: set when its current grant here is lost; each grant's worker watches its own flag. */
    private final Map<Integer, AtomicBoolean> lost = new ConcurrentHashMap<>();

    private volatile boolean closing;

    PartitionParticipant(String id, Setting setting, FenceGate gate) throws IOException {
        super(id, false, setting);
        this.gate = gate;
        client = TcpProxy.clientBuilder(connectString(), ChaosCampaign.SESSION_MS)
                .build();
        partitions = new FencedPartitions(
                client,
                "/chaos/" + setting.prefix() + "partitions",
                id,
                setting.config().variant().partitions(),
                new Listener());
    }

    /** The elections of a campaign over {@code count} partitions: one per partition. */
    static List<String> elections(int count) {
        return IntStream.range(0, count)
                .mapToObj(PartitionParticipant::election)
                .toList();
    }

    static String election(int partition) {
        return "partition-" + partition;
    }

    @Override
    String election() {
        return "partitions";
    }

    private final class Listener implements FencedPartitionListener {
        @Override
        public void acquired(int partition, FencingToken token) {
            long session = session();
            String election = election(partition);
            var events = setting.observations().eventsOf(id, election);
            events.granted(token.value(), session, System.nanoTime());
            AtomicBoolean mine = new AtomicBoolean();
            lost.put(partition, mine);
            ChaosCampaign.Config config = setting.config();
            LeaderWork work = new LeaderWork(
                    id,
                    ChaosCampaign.RESOURCE + election,
                    setting.prefix(),
                    gate,
                    config.database().dataSource(),
                    config.unfenced(),
                    freezer::holdIfFrozen,
                    events);
            Thread worker = new Thread(
                    () -> work.run(token.value(), session, () -> closing || mine.get()),
                    "chaos-" + id + "-" + election);
            worker.setDaemon(true);
            workers.removeIf(w -> !w.isAlive());
            workers.add(worker);
            worker.start();
        }

        /** Does not wait for the worker: a paused worker writes late, and the partition's fence must refuse it. */
        @Override
        public void lost(int partition, FencingToken token, LossCause cause) {
            AtomicBoolean flag = lost.get(partition);
            if (flag != null) {
                flag.set(true);
            }
        }
    }

    private long session() {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return 0; // the client is closing: the grant is still reported, so its belief is accounted for
        }
    }

    @Override
    void start() throws Exception {
        client.start();
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException(id + " did not reach ZooKeeper within 30 s");
        }
        partitions.start();
    }

    @Override
    String pauseKind() {
        return "every partition's worker frozen after its token, connection silent";
    }

    @Override
    void expireOnClient() throws Exception {
        client.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
    }

    @Override
    public void close() {
        closing = true;
        unpause();
        partitions.close();
        joinAll(workers);
        client.close();
        endAllBeliefs();
        closeProxies();
    }
}
