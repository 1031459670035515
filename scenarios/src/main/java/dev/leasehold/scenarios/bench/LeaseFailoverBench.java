package dev.leasehold.scenarios.bench;

import dev.leasehold.scenarios.cli.Env;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.lease.LeaseElection;
import dev.leasehold.store.lease.LeaseListener;
import dev.leasehold.store.lease.LeaseLoss;
import dev.leasehold.store.lease.LeaseTiming;
import dev.leasehold.testkit.PlainDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The lease row of {@code bench failover}: two {@link LeaseElection}s on the bench's database; the leader "dies" (its
 * connections fail from one instant on: no renew, no release, as a crashed process), and the time is taken from that
 * instant to the next leader's first fenced write ({@code advance} and a {@code write} through the gate with its new
 * token). Compared with the lease duration, which bounds it by design: the row expires at most a lease after the
 * leader's last renew, and the follower tries every retry period.
 */
final class LeaseFailoverBench {

    private static final long WAIT_MS = 60_000;
    /** The seeds' 15 s / 5 s, scaled to 3 s / 2 s (2 s: no loss by starvation on a busy machine); retry 200 ms. */
    static final LeaseTiming TIMING = LeaseTiming.ofMillis(3_000, 2_000, 200);

    private final Env env;
    private final boolean quick;

    LeaseFailoverBench(Env env, boolean quick) {
        this.env = env;
        this.quick = quick;
    }

    List<Row> run() throws Exception {
        String prefix = env.tablePrefix();
        StoreConfig config = StoreConfig.defaults().withTablePrefix(prefix);
        DataSource ds = env.dataSource("bench-lease");
        FencedSchema.install(ds, config);
        FenceGate gate = new FenceGate(ds, config);
        String name = "bench-failover-" + System.nanoTime();
        Samples samples = new Samples();
        int rounds = quick ? 1 : 5;
        for (int round = 0; round < rounds; round++) {
            samples.add(round(ds, config, gate, name, round));
        }
        long lease = TIMING.leaseDuration().toNanos();
        double ratio = samples.median() / (double) lease;
        long bound = lease + 2 * TIMING.retryPeriod().toNanos();
        return List.of(Row.durations(
                        "failover",
                        "LeaseElection, leader's death to next leader's first fenced write (lease "
                                + TIMING.leaseDuration().toMillis() + " ms, retry "
                                + TIMING.retryPeriod().toMillis()
                                + " ms; ratio to the lease)",
                        samples,
                        false)
                .compared(
                        String.format("%.2f", ratio),
                        ElectionBench.goal(samples.median() <= bound, "<= lease + two retry periods")));
    }

    private long round(DataSource ds, StoreConfig config, FenceGate gate, String name, int round) throws Exception {
        Dying toLeader = new Dying(ds);
        BlockingQueue<Long> leaderGrants = new LinkedBlockingQueue<>();
        BlockingQueue<Long> firstWrites = new LinkedBlockingQueue<>();
        try (LeaseElection leader = new LeaseElection(toLeader, name, "l" + round, TIMING, told(leaderGrants), config);
                LeaseElection next = new LeaseElection(
                        ds,
                        name,
                        "n" + round,
                        TIMING,
                        new LeaseListener() {
                            @Override
                            public void acquired(long token) {
                                gate.advance(name, token);
                                gate.write(name, token, tx -> {});
                                firstWrites.add(System.nanoTime());
                            }

                            @Override
                            public void lost(long token, LeaseLoss cause) {}
                        },
                        config)) {
            leader.start();
            if (leaderGrants.poll(WAIT_MS, TimeUnit.MILLISECONDS) == null) {
                throw new IllegalStateException("the leader did not lead within " + WAIT_MS + " ms");
            }
            next.start();
            long died = System.nanoTime();
            toLeader.die();
            Long wrote = firstWrites.poll(WAIT_MS, TimeUnit.MILLISECONDS);
            if (wrote == null) {
                throw new IllegalStateException("no next leader within " + WAIT_MS + " ms of the leader's death");
            }
            return wrote - died;
        }
    }

    private static LeaseListener told(BlockingQueue<Long> grants) {
        return new LeaseListener() {
            @Override
            public void acquired(long token) {
                grants.add(token);
            }

            @Override
            public void lost(long token, LeaseLoss cause) {}
        };
    }

    /** A participant's way to the database that fails for good from {@link #die()} on. */
    private static final class Dying extends PlainDataSource {
        private final DataSource target;
        private volatile boolean dead;

        Dying(DataSource target) {
            this.target = target;
        }

        void die() {
            dead = true;
        }

        @Override
        public Connection getConnection() throws SQLException {
            if (dead) {
                throw new SQLException("the participant died (bench)", "08001");
            }
            return target.getConnection();
        }
    }
}
