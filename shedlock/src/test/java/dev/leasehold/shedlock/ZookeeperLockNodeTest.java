package dev.leasehold.shedlock;

import static dev.leasehold.shedlock.ProviderSupport.config;
import static dev.leasehold.shedlock.ProviderSupport.lock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.support.LockException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/** What is particular to the ZooKeeper provider: its node, its token, its clock, its refusals. */
@Timeout(60)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ZookeeperLockNodeTest {

    private static final String BASE = "/locks";

    private TestingServer server;
    private CuratorFramework client;
    private ZookeeperFencedLockProvider provider;

    @BeforeAll
    void start() throws Exception {
        server = new TestingServer();
        client = ZookeeperFencedLockProviderTest.client(server);
        provider = new ZookeeperFencedLockProvider(client, BASE);
        lock(provider, "warm-up", Duration.ofSeconds(30), Duration.ZERO).unlock(); // the fresh server's first write
    }

    @AfterAll
    void stop() throws Exception {
        client.close();
        server.close();
    }

    @Test
    void aBasePathThatIsNotAbsoluteIsRefusedAtConstruction() {
        assertThatThrownBy(() -> new ZookeeperFencedLockProvider(client, "shedlock"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("basePath")
                .hasMessageContaining("absolute");
        assertThatThrownBy(() -> new ZookeeperFencedLockProvider(client, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("basePath");
        assertThatThrownBy(() -> new ZookeeperFencedLockProvider(client, "/"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("basePath");
        assertThatThrownBy(() -> new ZookeeperFencedLockProvider(client, "/shedlock/"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("basePath");
        assertThatThrownBy(() -> new ZookeeperFencedLockProvider(null, "/shedlock"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("client");
    }

    @Test
    void aNameThatIsNotOneNodeNameIsRefused() {
        assertThatThrownBy(() -> provider.lock(config("a/b")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a/b");
        assertThatThrownBy(() -> provider.lock(config("..")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'..'");
    }

    @Test
    void theTokenIsTheCzxidOfTheCreatedNodeThenTheMzxidOfTheTakingWrite() throws Exception {
        String name = "token-is-a-zxid";
        FencedSimpleLock first = lock(provider, name, Duration.ofMinutes(5), Duration.ZERO);
        Stat created = client.checkExists().forPath(BASE + "/" + name);
        assertThat(first.token()).isEqualTo(created.getCzxid());
        FencedSimpleLock extended = ProviderSupport.extended(first, Duration.ofMinutes(5), Duration.ZERO);
        extended.unlock();

        FencedSimpleLock second = lock(provider, name, Duration.ofMinutes(5), Duration.ZERO);
        Stat taken = client.checkExists().forPath(BASE + "/" + name);
        assertThat(second.token()).isEqualTo(taken.getMzxid()).isGreaterThan(first.token());
        assertThat(taken.getCzxid()).isEqualTo(created.getCzxid());
        assertThat(new String(client.getData().forPath(BASE + "/" + name), StandardCharsets.UTF_8))
                .isEqualTo("leasehold-shedlock/1 token=write for=300000 until=0");
        second.unlock();
        assertThat(new String(client.getData().forPath(BASE + "/" + name), StandardCharsets.UTF_8))
                .startsWith("leasehold-shedlock/1 token=" + second.token() + " for=0 until=");
    }

    @Test
    void thisJvmsClockDecidesNothing() {
        String name = "server-clock";
        try {
            ClockProvider.setClock(Clock.offset(Clock.systemUTC(), Duration.ofHours(1)));
            FencedSimpleLock held = lock(provider, name, Duration.ofMinutes(5), Duration.ZERO);
            assertThat(provider.lock(config(name)))
                    .as("held, whatever this JVM's clock says")
                    .isEmpty();
            held.unlock();

            ClockProvider.setClock(Clock.offset(Clock.systemUTC(), Duration.ofHours(-1)));
            lock(provider, name, Duration.ofMillis(100), Duration.ZERO); // never unlocked
            ProviderSupport.pause(Duration.ofMillis(250)); // past lockAtMostFor on the server's clock
            lock(provider, name, Duration.ofMinutes(5), Duration.ZERO).unlock();
        } finally {
            ClockProvider.setClock(Clock.systemUTC());
        }
    }

    @Test
    void aLockOutlivesItsHoldersSessionAndExpiresAtLockAtMostFor() throws Exception {
        String name = "outlives-session";
        CuratorFramework holder = ZookeeperFencedLockProviderTest.client(server);
        lock(new ZookeeperFencedLockProvider(holder, BASE), name, Duration.ofMillis(2_000), Duration.ZERO);
        holder.close(); // the holder's process is gone, its session closed
        assertThat(provider.lock(config(name))).isEmpty();
        ProviderSupport.pause(Duration.ofMillis(2_300)); // past lockAtMostFor
        lock(provider, name, Duration.ofMinutes(5), Duration.ZERO).unlock();
    }

    @Test
    void tokensKeepGrowingAcrossARestartOfTheZooKeeperServer() throws Exception {
        String name = "server-restart";
        FencedSimpleLock before = lock(provider, name, Duration.ofMinutes(5), Duration.ZERO);
        before.unlock();
        server.restart(); // same data directory: the history goes on
        client.blockUntilConnected();
        FencedSimpleLock after = lock(provider, name, Duration.ofMinutes(5), Duration.ZERO);
        assertThat(after.token()).isGreaterThan(before.token());
        after.unlock();
    }

    @Test
    void aNodeThisProviderDidNotWriteIsAnErrorThatSaysSo() throws Exception {
        client.create().creatingParentsIfNeeded().forPath(BASE + "/foreign", "2026-12-07T01:00:00Z".getBytes());
        assertThatThrownBy(() -> provider.lock(config("foreign")))
                .isInstanceOf(LockException.class)
                .hasMessageContaining(BASE + "/foreign")
                .hasMessageContaining("basePath of its own");
    }
}
