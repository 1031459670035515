package dev.leasehold.shedlock;

import dev.leasehold.store.FencedSchema;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The contract on a real ZooKeeper (curator-test's TestingServer): two processes are two Curator clients, a restart is
 * a new client; the resource behind the gate is an H2 database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ZookeeperFencedLockProviderTest extends FencedLockProviderContract {

    static final String BASE_PATH = "/leasehold/shedlock";

    private TestingServer server;
    private CuratorFramework clientA;
    private CuratorFramework clientB;
    private ExtensibleLockProvider providerA;
    private ExtensibleLockProvider providerB;
    private final List<CuratorFramework> restarted = new ArrayList<>();
    private final DataSource resource = TestDatabases.h2("zookeeper-resource");

    @BeforeAll
    void start() throws Exception {
        server = new TestingServer();
        clientA = client(server);
        clientB = client(server);
        providerA = new ZookeeperFencedLockProvider(clientA, BASE_PATH);
        providerB = new ZookeeperFencedLockProvider(clientB, BASE_PATH);
        FencedSchema.install(resource);
        warmUp();
    }

    @AfterEach
    void closeRestarted() {
        restarted.forEach(CuratorFramework::close);
        restarted.clear();
    }

    @AfterAll
    void stop() throws Exception {
        clientA.close();
        clientB.close();
        server.close();
    }

    static CuratorFramework client(TestingServer server) throws InterruptedException {
        CuratorFramework client =
                CuratorFrameworkFactory.newClient(server.getConnectString(), 20_000, 10_000, new RetryOneTime(100));
        client.start();
        client.blockUntilConnected();
        return client;
    }

    @Override
    protected ExtensibleLockProvider provider() {
        return providerA;
    }

    @Override
    protected ExtensibleLockProvider otherProcess() {
        return providerB;
    }

    @Override
    protected ExtensibleLockProvider restartedProcess() {
        try {
            CuratorFramework client = client(server);
            restarted.add(client);
            return new ZookeeperFencedLockProvider(client, BASE_PATH);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    protected DataSource resourceDatabase() {
        return resource;
    }
}
