package dev.leasehold.scenarios.chaos;

import dev.leasehold.store.FenceGate;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.lease.LeaseElection;
import dev.leasehold.store.lease.LeaseListener;
import dev.leasehold.store.lease.LeaseLoss;
import dev.leasehold.store.lease.LeaseTiming;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A participant elected by a {@link LeaseElection} on the campaign's database (no ZooKeeper), in the campaign's JVM.
 * Its election and its writes reach the database through its own {@link SeverableDataSource}: a partition cuts it off
 * (its renews fail, and it must give up before its lease can expire on the database); a pause cuts it off and freezes
 * its worker after its leadership check, so that its next write comes late, with an old token.
 */
final class LeaseParticipant extends InJvmParticipant {

    /** The one lease election of the campaign. */
    static final String ELECTION = "lease";

    /**
     * The lease's timing, scaled down from kube-controller-manager's 15 s / 10 s / 2 s: the lease lasts as long as a
     * ZooKeeper campaign's session, so the nemesis's partitions and pauses outlast it.
     */
    static final LeaseTiming TIMING = new LeaseTiming(
            Duration.ofMillis(ChaosCampaign.SESSION_MS), Duration.ofMillis(1_400), Duration.ofMillis(400));

    private final SeverableDataSource database;
    private final LeaseElection election;
    private final LeaderWork work;
    private final List<Thread> workers = new CopyOnWriteArrayList<>();
    private volatile boolean closing;
    /** Set when the current grant is lost; each grant's worker watches its own flag. */
    private volatile AtomicBoolean lost = new AtomicBoolean(true);

    LeaseParticipant(String id, Setting setting) throws IOException {
        super(id, false, setting);
        ChaosCampaign.Config config = setting.config();
        database = new SeverableDataSource(config.database().dataSource(), id);
        StoreConfig store = StoreConfig.defaults().withTablePrefix(setting.prefix());
        work = new LeaderWork(
                id,
                resource(),
                setting.prefix(),
                new FenceGate(database, store),
                database,
                config.unfenced(),
                freezer::holdIfFrozen,
                events());
        election = new LeaseElection(database, "chaos-" + ELECTION, id, TIMING, new Listener(), store);
    }

    @Override
    String election() {
        return ELECTION;
    }

    private final class Listener implements LeaseListener {
        @Override
        public void acquired(long token) {
            events().granted(token, 0, System.nanoTime());
            AtomicBoolean mine = new AtomicBoolean();
            lost = mine;
            Thread worker = new Thread(() -> work.run(token, 0, () -> closing || mine.get()), "chaos-" + id);
            worker.setDaemon(true);
            workers.removeIf(w -> !w.isAlive());
            workers.add(worker);
            worker.start();
        }

        /** Does not wait for the worker: a paused worker writes late, and the fence must refuse it. */
        @Override
        public void lost(long token, LeaseLoss cause) {
            lost.set(true);
        }
    }

    @Override
    void start() {
        election.start();
    }

    @Override
    void silence() {
        database.cut();
    }

    @Override
    void resume() {
        database.heal();
    }

    @Override
    String pauseKind() {
        return "worker frozen after its leadership check, renews failing";
    }

    @Override
    void expireOnClient() {
        throw new UnsupportedOperationException("a lease election has no ZooKeeper session");
    }

    @Override
    public void close() {
        closing = true;
        unpause();
        election.close();
        joinAll(workers);
        endAllBeliefs();
    }
}
