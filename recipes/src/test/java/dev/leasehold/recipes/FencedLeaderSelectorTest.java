package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.testkit.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.utils.ZKPaths;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(120)
class FencedLeaderSelectorTest extends ZkTestCase {

    private static final String PATH = "/app/selector";

    /** Leader work that reports its token and thread, then holds leadership until released or interrupted. */
    private static final class HeldWork implements FencedLeaderSelectorListener {
        final BlockingQueue<FencingToken> granted = new LinkedBlockingQueue<>();
        final BlockingQueue<String> threads = new LinkedBlockingQueue<>();
        final BlockingQueue<FencingToken> interrupted = new LinkedBlockingQueue<>();
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public void takeLeadership(CuratorFramework client, FencingToken token) {
            threads.add(Thread.currentThread().getName());
            granted.add(token);
            try {
                release.await();
            } catch (InterruptedException e) {
                interrupted.add(token);
            }
        }

        FencingToken nextGrant() throws InterruptedException {
            FencingToken token = granted.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(token).as("a grant within %s", Zk.WAIT).isNotNull();
            return token;
        }
    }

    private FencedLeaderSelector selector(CuratorFramework client, String id, FencedLeaderSelectorListener work) {
        FencedLeaderSelector selector = closeLater(new FencedLeaderSelector(client, PATH, id, work));
        selector.start();
        return selector;
    }

    @Test
    void tokenIsTheCzxidOfTheLeadersOwnNodeAndWorkRunsOnTheSelectorsThread() throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        HeldWork work = new HeldWork();
        FencedLeaderSelector selector = selector(client, "s-1", work);

        FencingToken token = work.nextGrant();

        assertThat(work.threads.take()).isEqualTo("leasehold-selector-s-1");
        assertThat(selector.hasLeadership()).isTrue();
        assertThat(selector.currentToken()).contains(token);
        assertThat(token.value()).isEqualTo(Zk.czxid(observer, token.path()));
        assertThat(new String(observer.getData().forPath(token.path()))).isEqualTo("s-1");
        assertThat(ElectionNodes.lowestChild(observer.getChildren().forPath(PATH), ElectionNodes.SELECTOR_MARKER))
                .contains(ZKPaths.getNodeFromPath(token.path()));
        work.release.countDown();
    }

    /** Two selectors on one client share a session: the id in the node's data tells whose node leads. */
    @Test
    void twoSelectorsOnOneClientEachGetTheirOwnNodesToken() throws Exception {
        CuratorFramework shared = closeLater(Zk.client(server.getConnectString()));
        HeldWork first = new HeldWork();
        HeldWork second = new HeldWork();
        selector(shared, "first", first);
        FencingToken t1 = first.nextGrant();
        selector(shared, "second", second);
        Zk.awaitChildren(observer, PATH, 2);
        assertThat(second.granted).isEmpty();

        first.release.countDown();
        FencingToken t2 = second.nextGrant();

        assertThat(t1.participantId()).isEqualTo("first");
        assertThat(t2.participantId()).isEqualTo("second");
        assertThat(t2.value()).isGreaterThan(t1.value()).isEqualTo(Zk.czxid(observer, t2.path()));
        assertThat(new String(observer.getData().forPath(t2.path()))).isEqualTo("second");
        second.release.countDown();
    }

    @Test
    void tokensIncreaseAcrossRequeuedLeaders() throws Exception {
        AtomicReference<FencingToken> last = new AtomicReference<>();
        BlockingQueue<FencingToken> grants = new LinkedBlockingQueue<>();
        FencedLeaderSelectorListener brief = (client, token) -> grants.add(token);
        for (int i = 0; i < 3; i++) {
            FencedLeaderSelector s = closeLater(
                    new FencedLeaderSelector(closeLater(Zk.client(server.getConnectString())), PATH, "s-" + i, brief));
            s.autoRequeue();
            s.start();
        }
        for (int i = 0; i < 12; i++) {
            FencingToken token = grants.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(token).isNotNull();
            if (last.get() != null) {
                assertThat(token.value()).isGreaterThan(last.get().value());
            }
            last.set(token);
        }
    }

    /**
     * Timeline: A leads and holds its work; A's connection goes silent; at SUSPENDED A's token is withdrawn and its
     * work thread interrupted; the server expires A's session; B leads with a higher token.
     */
    @Test
    void serverSideExpiryInterruptsTheLeadersWork() throws Exception {
        TcpProxy proxy = closeLater(TcpProxy.to(server.getConnectString()));
        CuratorFramework a = closeLater(Zk.client(proxy.connectString()));
        CuratorFramework b = closeLater(Zk.client(server.getConnectString()));
        HeldWork workA = new HeldWork();
        HeldWork workB = new HeldWork();
        FencedLeaderSelector selA = selector(a, "a", workA);
        FencingToken tA = workA.nextGrant();
        selector(b, "b", workB);
        Zk.awaitChildren(observer, PATH, 2);

        proxy.silence();
        assertThat(workA.interrupted.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS))
                .isEqualTo(tA);
        assertThat(selA.currentToken()).isEmpty();
        assertThat(selA.hasLeadership()).isFalse();
        FencingToken tB = workB.nextGrant();
        assertThat(tB.value()).isGreaterThan(tA.value());
        proxy.resume();
        workB.release.countDown();
    }

    @Test
    void workThatThrowsIsLoggedAndTheSelectorCarriesOn() throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        BlockingQueue<FencingToken> grants = new LinkedBlockingQueue<>();
        FencedLeaderSelector selector = closeLater(new FencedLeaderSelector(client, PATH, "thrower", (c, token) -> {
            grants.add(token);
            throw new IllegalStateException("leader work that throws (expected in this test)");
        }));
        selector.autoRequeue();
        selector.start();

        FencingToken first = grants.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        FencingToken second = grants.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(first).isNotNull();
        assertThat(second).isNotNull();
        assertThat(second.value()).isGreaterThan(first.value());
    }

    @Test
    void interruptLeadershipEndsTheGrantAndCloseIsIdempotent() throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        HeldWork work = new HeldWork();
        FencedLeaderSelector selector = selector(client, "s", work);
        FencingToken token = work.nextGrant();

        selector.interruptLeadership();

        assertThat(work.interrupted.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS))
                .isEqualTo(token);
        assertThat(selector.currentToken()).isEmpty();
        Zk.awaitDeleted(observer, token.path());
        selector.close();
        selector.close();
        assertThat(selector.hasLeadership()).isFalse();
    }

    /** With 10 selectors, a leader change delivers one watch notification in all: to the next in line. */
    @Test
    void leaderChangeWakesExactlyOneFollower() throws Exception {
        int n = 10;
        List<TcpProxy> proxies = new ArrayList<>();
        List<CuratorFramework> clients = new ArrayList<>();
        List<HeldWork> works = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            TcpProxy proxy = closeLater(TcpProxy.to(server.getConnectString()));
            proxies.add(proxy);
            CuratorFramework client = closeLater(Zk.client(proxy.connectString()));
            clients.add(client);
            HeldWork work = new HeldWork();
            works.add(work);
            selector(client, "s-" + i, work);
            Zk.awaitChildren(observer, PATH, i + 1);
        }
        FencingToken first = works.get(0).nextGrant();
        for (int i = 1; i < n; i++) {
            assertThat(proxies.get(i).awaitWatchRequests(PATH, 1, Zk.WAIT))
                    .as("s-%d watches its predecessor", i)
                    .isTrue();
        }
        long before = proxies.stream().mapToLong(TcpProxy::watchNotifications).sum();

        works.get(0).release.countDown();
        FencingToken second = works.get(1).nextGrant();
        for (CuratorFramework client : clients) {
            client.checkExists().forPath("/"); // a round trip: any notification sent earlier has crossed the proxy
        }

        assertThat(second.value()).isGreaterThan(first.value());
        assertThat(proxies.stream().mapToLong(TcpProxy::watchNotifications).sum() - before)
                .as("watch notifications for one leader change among %d selectors", n)
                .isEqualTo(1);
        assertThat(proxies.get(1).watchNotifications()).isEqualTo(1);
        works.forEach(w -> w.release.countDown());
    }

    /** close() interrupts the work and waits for it; the node is released only after the work returned. */
    @Test
    void closeStopsTheWorkBeforeReleasingTheNode() throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        AtomicReference<Boolean> nodeExistedWhenWorkEnded = new AtomicReference<>();
        BlockingQueue<FencingToken> grants = new LinkedBlockingQueue<>();
        FencedLeaderSelector selector = closeLater(new FencedLeaderSelector(client, PATH, "s", (c, token) -> {
            grants.add(token);
            try {
                new CountDownLatch(1).await();
            } finally {
                // close() interrupts the work twice (its own withdraw, then Curator's cancel of the task), so the
                // second interrupt may cut the check short: clear the flag and check again, still inside the work.
                for (int attempt = 0; attempt < 5 && nodeExistedWhenWorkEnded.get() == null; attempt++) {
                    Thread.interrupted();
                    try {
                        nodeExistedWhenWorkEnded.set(observer.checkExists().forPath(token.path()) != null);
                    } catch (Exception interrupted) {
                        // cut short by the second interrupt: check again
                    }
                }
            }
        }));
        selector.start();
        FencingToken token = grants.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(token).isNotNull();

        selector.close();

        assertThat(nodeExistedWhenWorkEnded.get()).isTrue();
        Zk.awaitDeleted(observer, token.path());
    }

    /**
     * Counted at the wire: the selector's token costs no request beyond plain Curator's for the same grant (the Stat
     * comes with the answer to the mutex's own create). Was two requests more (getChildren + getData) before.
     */
    @Test
    void theTokenCostsNoRequestBeyondPlainCuratorsGrant() throws Exception {
        TcpProxy plainProxy = closeLater(TcpProxy.to(server.getConnectString()));
        CuratorFramework plainClient = closeLater(Zk.client(plainProxy.connectString()));
        CountDownLatch plainLeads = new CountDownLatch(1);
        CountDownLatch plainRelease = new CountDownLatch(1);
        LeaderSelector plain = new LeaderSelector(plainClient, "/plain/selector", new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(CuratorFramework c) throws Exception {
                plainLeads.countDown();
                plainRelease.await();
            }
        });
        plain.setId("plain");
        toClose.push(plain::close);
        toClose.push(plainRelease::countDown);
        plain.start();
        assertThat(plainLeads.await(20, TimeUnit.SECONDS)).isTrue();
        long plainRequests = plainProxy.requests("/plain");

        TcpProxy fencedProxy = closeLater(TcpProxy.to(server.getConnectString()));
        CuratorFramework fencedClient = closeLater(Zk.client(fencedProxy.connectString()));
        HeldWork work = new HeldWork();
        FencedLeaderSelector fenced =
                closeLater(new FencedLeaderSelector(fencedClient, "/fenced/selector", "fenced", work));
        toClose.push(work.release::countDown);
        fenced.start();
        FencingToken token = work.nextGrant();
        long fencedRequests = fencedProxy.requests("/fenced");

        System.out.printf(
                "requests on the election path for a first grant: LeaderSelector %d, FencedLeaderSelector" + " %d%n",
                plainRequests, fencedRequests);
        assertThat(token.value()).isEqualTo(Zk.czxid(observer, token.path()));
        assertThat(fencedRequests - plainRequests)
                .as("extra requests per grant (plain Curator: %d)", plainRequests)
                .isZero();
    }

    /**
     * Work that ignores interrupts: close() waits only the configured time, the node stays (nobody else can lead,
     * so nobody holds a higher token) until the work returns, then goes.
     */
    @Test
    void workThatIgnoresTheInterruptKeepsItsNodeUntilItReturnsAndCloseWaitsOnlyTheCloseWait() throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        CountDownLatch finish = new CountDownLatch(1);
        toClose.push(finish::countDown);
        BlockingQueue<FencingToken> grants = new LinkedBlockingQueue<>();
        FencedLeaderSelector stubborn = closeLater(new FencedLeaderSelector(
                client,
                PATH,
                "stubborn",
                (c, token) -> {
                    grants.add(token);
                    while (true) {
                        try {
                            finish.await();
                            return;
                        } catch (InterruptedException ignored) {
                            // the point of this test: work that does not stop when interrupted
                        }
                    }
                },
                Duration.ofMillis(200)));
        stubborn.start();
        FencingToken token = grants.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(token).isNotNull();

        stubborn.close(); // returns after the 200 ms close wait, with a WARN
        assertThat(stubborn.hasLeadership()).isFalse();
        assertThat(observer.checkExists().forPath(token.path()))
                .as("the node of work that still runs")
                .isNotNull();
        HeldWork next = new HeldWork();
        toClose.push(next.release::countDown);
        FencedLeaderSelector follower = closeLater(
                new FencedLeaderSelector(closeLater(Zk.client(server.getConnectString())), PATH, "follower", next));
        follower.start();
        assertThat(follower.currentLeader().orElseThrow().participantId()).isEqualTo("stubborn");

        finish.countDown();
        Zk.awaitDeleted(observer, token.path());
        FencingToken followerToken = next.nextGrant();
        assertThat(followerToken.value()).isGreaterThan(token.value());
        LeaderInfo leader = follower.currentLeader().orElseThrow();
        assertThat(leader.participantId()).isEqualTo("follower");
        assertThat(leader.token()).isEqualTo(followerToken);
    }
}
