package dev.leasehold.recipes;

import java.io.Closeable;
import java.util.ArrayDeque;
import java.util.Deque;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A test with its own ZooKeeper server, an observer client, and what to close after each test (last first). */
abstract class ZkTestCase {

    final Deque<Closeable> toClose = new ArrayDeque<>();
    TestingServer server;
    CuratorFramework observer;

    /** The server's tick: {@link Zk#TICK_MS}, or {@link Zk#LONG_TICK_MS} for sessions that survive a reconnect. */
    int tickMs() {
        return Zk.TICK_MS;
    }

    @BeforeEach
    void startZooKeeper() throws Exception {
        server = Zk.server(tickMs());
        observer = closeLater(Zk.client(server.getConnectString()));
    }

    @AfterEach
    void stopAll() throws Exception {
        while (!toClose.isEmpty()) {
            toClose.pop().close();
        }
        server.close();
    }

    <T extends Closeable> T closeLater(T closeable) {
        toClose.push(closeable);
        return closeable;
    }
}
