package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.testkit.TcpProxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Counted at the wire (the test kit's proxy): a {@link FencedMutex} is herd-free and its token costs no request. */
@Timeout(120)
class MutexWireTest extends ZkTestCase {

    private static final String PATH = "/wire/mutex";

    /** With 10 processes queued, a release delivers one watch notification in all: to the next in line. */
    @Test
    void aReleaseWakesExactlyOneWaiter() throws Exception {
        int n = 10;
        List<TcpProxy> proxies = new ArrayList<>();
        List<CuratorFramework> clients = new ArrayList<>();
        List<MutexHolder> holders = new ArrayList<>();
        List<Future<FencingToken>> grants = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            TcpProxy proxy = closeLater(TcpProxy.to(server.getConnectString()));
            proxies.add(proxy);
            CuratorFramework client = closeLater(Zk.client(proxy.connectString()));
            clients.add(client);
            MutexHolder holder = closeLater(new MutexHolder(new FencedMutex(client, PATH, "m-" + i)));
            holders.add(holder);
            grants.add(holder.acquire());
            Zk.awaitChildren(observer, PATH, i + 1); // queued in this order
        }
        FencingToken first = grants.get(0).get(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        for (int i = 1; i < n; i++) {
            assertThat(proxies.get(i).awaitWatchRequests(PATH, 1, Zk.WAIT))
                    .as("m-%d watches its predecessor", i)
                    .isTrue();
        }
        long before = proxies.stream().mapToLong(TcpProxy::watchNotifications).sum();

        holders.get(0).release();
        FencingToken second = grants.get(1).get(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        for (CuratorFramework client : clients) {
            client.checkExists().forPath("/"); // a round trip: any notification sent earlier has crossed the proxy
        }

        assertThat(second.value()).isGreaterThan(first.value());
        assertThat(proxies.stream().mapToLong(TcpProxy::watchNotifications).sum() - before)
                .as("watch notifications for one release among %d queued processes", n)
                .isEqualTo(1);
        assertThat(proxies.get(1).watchNotifications()).isEqualTo(1);
        for (int i = 2; i < n; i++) {
            assertThat(grants.get(i).isDone()).as("m-%d still waits", i).isFalse();
        }
        holders.get(1).release();
    }

    /**
     * The same acquire-release cycles through a bare InterProcessMutex and through a FencedMutex send the same number
     * of requests: the token comes with the answer to Curator's own create.
     */
    @Test
    void theTokenCostsNoRequestBeyondPlainCurators() throws Exception {
        // Both lock paths as persistent nodes, made by the observer: Curator would otherwise make them as containers,
        // which the server reaps when empty (every 200 ms here, Zk), and a reap between two cycles costs the next
        // acquire a failed create and the parents' creation again: counts that depend on timing, not on the recipe.
        observer.create().creatingParentsIfNeeded().forPath("/plain/mutex");
        observer.create().creatingParentsIfNeeded().forPath("/fenced/mutex");
        TcpProxy plainProxy = closeLater(TcpProxy.to(server.getConnectString()));
        CuratorFramework plainClient = closeLater(Zk.client(plainProxy.connectString()));
        InterProcessMutex plain = new InterProcessMutex(plainClient, "/plain/mutex");
        for (int i = 0; i < 3; i++) {
            plain.acquire();
            plain.release();
        }
        long plainRequests = plainProxy.requests("/plain");

        TcpProxy fencedProxy = closeLater(TcpProxy.to(server.getConnectString()));
        CuratorFramework fencedClient = closeLater(Zk.client(fencedProxy.connectString()));
        FencedMutex fenced = closeLater(new FencedMutex(fencedClient, "/fenced/mutex", "fenced"));
        List<FencingToken> tokens = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            FencingToken token = fenced.acquire();
            assertThat(token.value()).isEqualTo(Zk.czxid(observer, token.path()));
            tokens.add(token);
            fenced.release();
        }
        long fencedRequests = fencedProxy.requests("/fenced");

        System.out.printf(
                "requests on the lock path for 3 acquire-release cycles: InterProcessMutex %d, FencedMutex %d%n",
                plainRequests, fencedRequests);
        assertThat(fencedRequests - plainRequests)
                .as("extra requests (plain Curator: %d)", plainRequests)
                .isZero();
        assertThat(tokens.get(1).value()).isGreaterThan(tokens.get(0).value());
        assertThat(tokens.get(2).value()).isGreaterThan(tokens.get(1).value());
    }
}
