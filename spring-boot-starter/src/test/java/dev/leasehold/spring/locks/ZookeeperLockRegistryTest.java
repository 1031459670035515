package dev.leasehold.spring.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.spring.FencedLock;
import dev.leasehold.spring.FencedLockRegistry;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StaleTokenException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * The contract on ZooKeeper (as {@code ZookeeperLockRegistryTests}), each registry on a Curator client of its own, and
 * what only a session brings: a hold lost with its session or its node.
 */
class ZookeeperLockRegistryTest extends LockRegistryContract {

    private static final String ROOT = "/locks";
    private static TestingServer zk;
    private final List<CuratorFramework> clients = new ArrayList<>();

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zk = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 200, -1), true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zk.close();
    }

    @AfterEach
    void closeClients() {
        clients.forEach(CuratorFramework::close);
    }

    private CuratorFramework newClient() throws InterruptedException {
        CuratorFramework client =
                CuratorFrameworkFactory.newClient(zk.getConnectString(), 10_000, 5_000, new RetryOneTime(100));
        clients.add(client);
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    @Override
    protected FencedLockRegistry newRegistry() {
        try {
            return FencedLockRegistry.zookeeper(newClient(), ROOT);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A's session expires while it holds (its process paused, say); B takes the lock with a higher token and fences the
     * resource; A's late write is refused, and its {@code token()} and {@code unlock()} say the lock was lost.
     */
    @Test
    void aHoldLostWithItsSessionIsRefusedAtTheResource() throws Exception {
        CuratorFramework clientA = newClient();
        FencedLockRegistry a = FencedLockRegistry.zookeeper(clientA, ROOT);
        FencedLockRegistry b = newRegistry();
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:zk-locks-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        FencedSchema.install(h2);
        FenceGate gate = new FenceGate(h2);
        FencedLock mine = a.obtain(key);
        mine.lock();
        long old = mine.token();
        gate.advance(key, old);
        CountDownLatch lost = new CountDownLatch(1);
        CountDownLatch reconnected = new CountDownLatch(1);
        clientA.getConnectionStateListenable().addListener((c, state) -> {
            if (state == ConnectionState.LOST) {
                lost.countDown();
            } else if (state == ConnectionState.RECONNECTED && lost.getCount() == 0) {
                reconnected.countDown();
            }
        });
        clientA.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
        assertThat(lost.await(20, TimeUnit.SECONDS)).isTrue();
        FencedLock theirs = b.obtain(key);
        ExecutorService processB = Executors.newSingleThreadExecutor();
        long next = CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                assertThat(theirs.tryLock(10, TimeUnit.SECONDS)).isTrue();
                            } catch (InterruptedException e) {
                                throw new IllegalStateException(e);
                            }
                            gate.advance(key, theirs.token());
                            return theirs.token();
                        },
                        processB)
                .get();
        assertThat(next).isGreaterThan(old);
        assertThatThrownBy(() -> gate.write(key, old, tx -> {})).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(mine::token).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(mine::unlock)
                .isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining("Lock was released in the store due to expiration");
        assertThat(reconnected.await(20, TimeUnit.SECONDS)).isTrue();
        CompletableFuture.runAsync(theirs::unlock, processB).get();
        processB.shutdown();
        assertThat(mine.tryLock(10, TimeUnit.SECONDS))
                .as("usable again after the loss")
                .isTrue();
        assertThat(mine.token()).isGreaterThan(next);
        mine.unlock();
    }

    /** CURATOR-206: Curator's mutex never tells a holder its node went; the heartbeat (a re-entrant tryLock) does. */
    @Test
    void aHeartbeatSeesTheHoldsNodeDeleted() throws Exception {
        CuratorFramework admin = newClient();
        FencedLock lock = newRegistry().obtain(key);
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
        for (String child : admin.getChildren().forPath(ROOT + "/" + key)) {
            admin.delete().forPath(ROOT + "/" + key + "/" + child);
        }
        assertThat(lock.tryLock()).as("the heartbeat sees the node gone").isFalse();
        assertThatThrownBy(lock::token).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
        lock.lock();
        lock.unlock();
    }

    @Test
    void aTtlIsCheckedAndAHoldLastsWithTheSession() throws Exception {
        FencedLock lock = newRegistry().obtain(key);
        lock.lock(Duration.ofMillis(1));
        assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(1))).isTrue();
        lock.unlock();
        assertThat(lock.token()).isPositive();
        lock.unlock();
        assertThatThrownBy(() -> lock.lock(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * Spring Integration's {@code LockRegistryLeaderInitiator} on this registry: it polls its held lock with {@code
     * tryLock}. The session expires: the heartbeat answers false and the candidate is revoked; it leads again with a
     * higher token; stopped, it leaves no node behind (another process takes the lock at once).
     */
    @Test
    void springIntegrationsLeaderInitiatorSeesTheLossAndLeadsAgainWithAHigherToken() throws Exception {
        CuratorFramework client = newClient();
        FencedLockRegistry registry = FencedLockRegistry.zookeeper(client, ROOT);
        BlockingQueue<String> events = new LinkedBlockingQueue<>();
        DefaultCandidate candidate = new DefaultCandidate("a", key) {
            @Override
            public void onGranted(Context context) {
                events.add("granted " + registry.obtain(key).token());
            }

            @Override
            public void onRevoked(Context context) {
                events.add("revoked");
            }
        };
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
        initiator.setHeartBeatMillis(100);
        initiator.setBusyWaitMillis(50);
        initiator.start();
        try {
            String first = events.poll(20, TimeUnit.SECONDS);
            assertThat(first).startsWith("granted ");
            client.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
            assertThat(events.poll(20, TimeUnit.SECONDS)).isEqualTo("revoked");
            String again = events.poll(30, TimeUnit.SECONDS);
            assertThat(again).startsWith("granted ");
            assertThat(Long.parseLong(again.substring(8))).isGreaterThan(Long.parseLong(first.substring(8)));
        } finally {
            initiator.stop();
        }
        assertThat(events.poll(20, TimeUnit.SECONDS)).isEqualTo("revoked");
        FencedLock other = newRegistry().obtain(key);
        assertThat(other.tryLock(5, TimeUnit.SECONDS)).as("nothing left behind").isTrue();
        other.unlock();
    }

    @Test
    void toStringNamesTheStoreAndRootIsChecked() {
        assertThat(newRegistry().toString()).contains("zookeeper").contains(ROOT);
        assertThatThrownBy(() -> FencedLockRegistry.zookeeper(null, ROOT)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FencedLockRegistry.zookeeper(clients.isEmpty() ? null : clients.get(0), "relative"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
