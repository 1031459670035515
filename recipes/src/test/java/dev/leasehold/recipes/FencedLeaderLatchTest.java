package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.testkit.TcpProxy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.SessionConnectionStateErrorPolicy;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.ZKPaths;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(120)
class FencedLeaderLatchTest extends ZkTestCase {

    private static final String PATH = "/app/leader";

    private FencedLeaderLatch latch(CuratorFramework client, String id, GrantRecorder recorder) {
        FencedLeaderLatch latch = closeLater(new FencedLeaderLatch(client, PATH, id));
        latch.addListener(recorder);
        latch.start();
        return latch;
    }

    @Test
    void tokenIsTheCzxidOfTheLeadersOwnNode() throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        GrantRecorder recorder = new GrantRecorder();
        FencedLeaderLatch latch = latch(client, "p-1", recorder);

        FencingToken token = recorder.nextAcquired();

        assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(latch.currentToken()).contains(token);
        assertThat(token.participantId()).isEqualTo("p-1");
        assertThat(token.value()).isEqualTo(Zk.czxid(observer, token.path()));
        assertThat(ElectionNodes.lowestChild(observer.getChildren().forPath(PATH), ElectionNodes.LATCH_MARKER))
                .contains(ZKPaths.getNodeFromPath(token.path()));
        assertThat(observer.checkExists().forPath(token.path()).getEphemeralOwner())
                .isEqualTo(client.getZookeeperClient().getZooKeeper().getSessionId());
    }

    @Test
    void tokenIncreasesAcrossSuccessiveLeaders() throws Exception {
        List<FencedLeaderLatch> latches = new ArrayList<>();
        List<GrantRecorder> recorders = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            GrantRecorder recorder = new GrantRecorder();
            recorders.add(recorder);
            latches.add(latch(closeLater(Zk.client(server.getConnectString())), "p-" + i, recorder));
            Zk.awaitChildren(observer, PATH, i + 1);
        }
        long previous = 0;
        for (int i = 0; i < 5; i++) {
            FencingToken token = recorders.get(i).nextAcquired();
            assertThat(token.participantId()).isEqualTo("p-" + i);
            assertThat(token.value()).isGreaterThan(previous).isEqualTo(Zk.czxid(observer, token.path()));
            previous = token.value();
            latches.get(i).close();
            assertThat(recorders.get(i).nextLost()).isEqualTo(token);
            assertThat(latches.get(i).currentToken()).isEmpty();
        }
    }

    @Test
    void rejoiningWithANewNodeGetsAHigherToken() throws Exception {
        CuratorFramework a = closeLater(Zk.client(server.getConnectString()));
        CuratorFramework b = closeLater(Zk.client(server.getConnectString()));
        GrantRecorder recA = new GrantRecorder();
        GrantRecorder recB = new GrantRecorder();
        FencedLeaderLatch first = latch(a, "a", recA);
        FencingToken t1 = recA.nextAcquired();
        latch(b, "b", recB);
        Zk.awaitChildren(observer, PATH, 2);

        first.close();
        FencingToken t2 = recB.nextAcquired();
        GrantRecorder recA2 = new GrantRecorder();
        latch(a, "a", recA2);
        Zk.awaitChildren(observer, PATH, 2);
        toClose.stream()
                .filter(c ->
                        c instanceof FencedLeaderLatch l && l.participantId().equals("b"))
                .findFirst()
                .orElseThrow()
                .close();
        FencingToken t3 = recA2.nextAcquired();

        assertThat(t1.value()).isLessThan(t2.value());
        assertThat(t2.value()).isLessThan(t3.value());
    }

    /**
     * Timeline: A leads; A's connection goes silent (a partition, as the server sees it); A's client SUSPENDs and
     * the token is withdrawn at once; the server expires A's session and deletes A's node; B leads with a higher
     * token; A comes back, finds its session expired and rejoins with a new node, behind B.
     */
    @Test
    void serverSideExpiryWithdrawsTheTokenAndTheNextLeaderHasAHigherOne() throws Exception {
        TcpProxy proxy = closeLater(TcpProxy.to(server.getConnectString()));
        CuratorFramework a = closeLater(Zk.client(proxy.connectString()));
        CuratorFramework b = closeLater(Zk.client(server.getConnectString()));
        GrantRecorder recA = new GrantRecorder();
        GrantRecorder recB = new GrantRecorder();
        CountDownLatch aLost = new CountDownLatch(1);
        a.getConnectionStateListenable().addListener((c, s) -> {
            if (s == ConnectionState.LOST) {
                aLost.countDown();
            }
        });
        FencedLeaderLatch latchA = latch(a, "a", recA);
        FencingToken tA = recA.nextAcquired();
        FencedLeaderLatch latchB = latch(b, "b", recB);
        Zk.awaitChildren(observer, PATH, 2);

        proxy.silence();
        assertThat(recA.nextLost()).isEqualTo(tA);
        assertThat(latchA.currentToken()).isEmpty();
        assertThat(latchA.hasLeadership()).isFalse();
        FencingToken tB = recB.nextAcquired();
        assertThat(tB.value()).isGreaterThan(tA.value());
        assertThat(observer.checkExists().forPath(tA.path()))
                .as("A's node, expired by the server")
                .isNull();

        proxy.resume();
        assertThat(aLost.await(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        Zk.awaitChildren(observer, PATH, 2);
        assertThat(latchA.hasLeadership()).isFalse();
        latchB.close();
        FencingToken tA2 = recA.nextAcquired();
        assertThat(tA2.value()).isGreaterThan(tB.value());
    }

    /**
     * A cut connection (SUSPENDED, then RECONNECTED well within the session) drops the token at once; Curator
     * re-grants on the same node and the token comes back with the same value.
     */
    @Test
    void reconnectOnTheSameSessionGivesTheSameTokenBack() throws Exception {
        try (TestingServer slow = Zk.server(Zk.LONG_TICK_MS);
                TcpProxy proxy = TcpProxy.to(slow.getConnectString());
                CuratorFramework a =
                        Zk.started(Zk.builder(proxy.connectString()).sessionTimeoutMs(Zk.LONG_SESSION_MS))) {
            long session = a.getZookeeperClient().getZooKeeper().getSessionId();
            GrantRecorder rec = new GrantRecorder();
            try (FencedLeaderLatch latch = new FencedLeaderLatch(a, PATH, "a")) {
                latch.addListener(rec);
                latch.start();
                FencingToken before = rec.nextAcquired();

                proxy.cut();

                assertThat(rec.nextLost()).isEqualTo(before);
                FencingToken after = rec.nextAcquired();
                assertThat(a.getZookeeperClient().getZooKeeper().getSessionId())
                        .as("same session")
                        .isEqualTo(session);
                assertThat(after.value()).isEqualTo(before.value());
                assertThat(after.path()).isEqualTo(before.path());
                assertThat(latch.currentToken()).contains(after);
            }
        }
    }

    @Test
    void sessionErrorPolicyKeepsTheTokenWhileSuspended() throws Exception {
        try (TestingServer slow = Zk.server(Zk.LONG_TICK_MS);
                TcpProxy proxy = TcpProxy.to(slow.getConnectString());
                CuratorFramework a = Zk.started(Zk.builder(proxy.connectString())
                        .sessionTimeoutMs(Zk.LONG_SESSION_MS)
                        .connectionStateErrorPolicy(new SessionConnectionStateErrorPolicy()))) {
            CountDownLatch suspended = new CountDownLatch(1);
            CountDownLatch reconnected = new CountDownLatch(1);
            AtomicReference<Optional<FencingToken>> tokenWhenSuspended = new AtomicReference<>();
            GrantRecorder rec = new GrantRecorder();
            try (FencedLeaderLatch latch = new FencedLeaderLatch(a, PATH, "a")) {
                a.getConnectionStateListenable().addListener((c, s) -> {
                    if (s == ConnectionState.SUSPENDED) {
                        tokenWhenSuspended.set(latch.currentToken());
                        suspended.countDown();
                    } else if (s == ConnectionState.RECONNECTED) {
                        reconnected.countDown();
                    }
                });
                latch.addListener(rec);
                PrintStream stderr = System.err;
                ByteArrayOutputStream logged = new ByteArrayOutputStream();
                System.setErr(new PrintStream(logged, true, StandardCharsets.UTF_8));
                try {
                    latch.start(); // slf4j-simple writes to the current System.err
                } finally {
                    System.setErr(stderr);
                }
                assertThat(logged.toString(StandardCharsets.UTF_8))
                        .as("one WARN at start")
                        .containsOnlyOnce("WARN")
                        .contains("[a]")
                        .contains("only the resource's token check");
                FencingToken token = rec.nextAcquired();

                proxy.cut();

                assertThat(suspended.await(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS))
                        .isTrue();
                assertThat(tokenWhenSuspended.get())
                        .as("SUSPENDED is not an error under this policy")
                        .contains(token);
                assertThat(reconnected.await(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS))
                        .isTrue();
                assertThat(latch.currentToken()).contains(token);
                assertThat(rec.isEmpty()).as("no leadershipLost was told").isTrue();
            }
        }
    }

    /** The server stops for longer than the session timeout: every session expires; the next grant is higher. */
    @Test
    void tokenIncreasesAcrossAServerRestartLongerThanTheSession() throws Exception {
        CuratorFramework a = closeLater(Zk.client(server.getConnectString()));
        CuratorFramework b = closeLater(Zk.client(server.getConnectString()));
        GrantRecorder rec = new GrantRecorder(); // both participants tell the same recorder
        latch(a, "a", rec);
        FencingToken before = rec.nextAcquired();
        latch(b, "b", rec);
        Zk.awaitChildren(observer, PATH, 2);

        server.stop();
        assertThat(rec.nextLost()).isEqualTo(before);
        Thread.sleep(2L * Zk.SESSION_MS); // stands for the outage: longer than the session timeout
        server.restart();

        FencingToken after = rec.nextAcquired();
        assertThat(after.value()).isGreaterThan(before.value());
        assertThat(after.value()).isEqualTo(Zk.czxid(observer, after.path()));
    }

    /** The election's container parent is reaped when empty: the sequence restarts at 0, the token does not go back. */
    @Test
    void reapedContainerRestartsTheSequenceButNotTheToken() throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        long highestBefore = 0;
        long highestSequenceBefore = -1;
        // All three join before any leaves: the container is never empty (and so never reaped) during round 1.
        List<FencedLeaderLatch> round1 = new ArrayList<>();
        List<GrantRecorder> recorders = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            GrantRecorder rec = new GrantRecorder();
            recorders.add(rec);
            round1.add(latch(client, "round1-" + i, rec));
            Zk.awaitChildren(observer, PATH, i + 1);
        }
        for (int i = 0; i < 3; i++) {
            FencingToken token = recorders.get(i).nextAcquired();
            highestBefore = Math.max(highestBefore, token.value());
            highestSequenceBefore = Math.max(
                    highestSequenceBefore,
                    ElectionNodes.sequenceOf(ZKPaths.getNodeFromPath(token.path()), ElectionNodes.LATCH_MARKER));
            round1.get(i).close();
            Zk.awaitDeleted(observer, token.path());
        }
        Zk.awaitDeleted(observer, PATH); // the empty container, reaped by the server

        GrantRecorder rec = new GrantRecorder();
        latch(client, "round2", rec);
        FencingToken after = rec.nextAcquired();

        long sequenceAfter =
                ElectionNodes.sequenceOf(ZKPaths.getNodeFromPath(after.path()), ElectionNodes.LATCH_MARKER);
        assertThat(highestSequenceBefore).isEqualTo(2);
        assertThat(sequenceAfter).as("the sequence restarted").isZero();
        assertThat(after.value()).as("the token did not").isGreaterThan(highestBefore);
    }

    /** With 20 participants, a leader change delivers one watch notification in all: to the next in line. */
    @Test
    void leaderChangeWakesExactlyOneFollower() throws Exception {
        int n = 20;
        List<TcpProxy> proxies = new ArrayList<>();
        List<CuratorFramework> clients = new ArrayList<>();
        List<FencedLeaderLatch> latches = new ArrayList<>();
        List<GrantRecorder> recorders = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            TcpProxy proxy = closeLater(TcpProxy.to(server.getConnectString()));
            proxies.add(proxy);
            CuratorFramework client = closeLater(Zk.client(proxy.connectString()));
            clients.add(client);
            GrantRecorder rec = new GrantRecorder();
            recorders.add(rec);
            latches.add(latch(client, "p-" + i, rec));
            Zk.awaitChildren(observer, PATH, i + 1);
        }
        FencingToken first = recorders.get(0).nextAcquired();
        for (int i = 1; i < n; i++) {
            assertThat(proxies.get(i).awaitWatchRequests(PATH, 1, Zk.WAIT))
                    .as("p-%d watches its predecessor", i)
                    .isTrue();
        }
        long notificationsBefore =
                proxies.stream().mapToLong(TcpProxy::watchNotifications).sum();
        long watchesBefore =
                proxies.stream().mapToLong(p -> p.watchRequests(PATH)).sum();

        latches.get(0).close();
        FencingToken second = recorders.get(1).nextAcquired();
        for (CuratorFramework client : clients) {
            client.checkExists().forPath("/"); // a round trip: any notification sent earlier has crossed the proxy
        }

        long notifications =
                proxies.stream().mapToLong(TcpProxy::watchNotifications).sum() - notificationsBefore;
        long watches = proxies.stream().mapToLong(p -> p.watchRequests(PATH)).sum() - watchesBefore;
        assertThat(second.value()).isGreaterThan(first.value());
        assertThat(notifications)
                .as("watch notifications for one leader change among %d", n)
                .isEqualTo(1);
        assertThat(watches)
                .as("new watches on the election set for one leader change")
                .isZero();
        assertThat(proxies.get(0).watchRequests(PATH))
                .as("the first leader never watched anyone")
                .isZero();
        assertThat(proxies.get(1).watchNotifications()).isEqualTo(1);
    }

    /**
     * Counted at the wire: the token costs no request beyond plain Curator's for the same grant (the Stat comes with
     * Curator's own create answer). Was one request more (a read-only multi) before.
     */
    @Test
    void theTokenCostsNoRequestBeyondPlainCuratorsGrant() throws Exception {
        TcpProxy plainProxy = closeLater(TcpProxy.to(server.getConnectString()));
        CuratorFramework plainClient = closeLater(Zk.client(plainProxy.connectString()));
        LeaderLatch plain = closeLater(new LeaderLatch(plainClient, "/plain/leader", "plain"));
        plain.start();
        assertThat(plain.await(10, TimeUnit.SECONDS)).isTrue();
        long plainRequests = plainProxy.requests("/plain");

        TcpProxy fencedProxy = closeLater(TcpProxy.to(server.getConnectString()));
        CuratorFramework fencedClient = closeLater(Zk.client(fencedProxy.connectString()));
        FencedLeaderLatch fenced = closeLater(new FencedLeaderLatch(fencedClient, "/fenced/leader", "fenced"));
        fenced.start();
        assertThat(fenced.await(10, TimeUnit.SECONDS)).isTrue();
        long fencedRequests = fencedProxy.requests("/fenced");

        System.out.printf(
                "requests on the election path for a first grant: LeaderLatch %d, FencedLeaderLatch %d%n",
                plainRequests, fencedRequests);
        assertThat(fencedRequests - plainRequests)
                .as("extra requests per grant (plain Curator: %d)", plainRequests)
                .isZero();
    }

    @Test
    void listenersRunOnTheRecipesThreadAndAThrowingOneBreaksNothing() throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        FencedLeaderLatch latch = closeLater(new FencedLeaderLatch(client, PATH, "p"));
        latch.addListener(new FencedLeaderListener() {
            @Override
            public void leadershipAcquired(FencingToken token) {
                throw new IllegalStateException("a listener that throws (expected in this test)");
            }

            @Override
            public void leadershipLost(FencingToken token) {
                throw new IllegalStateException("a listener that throws (expected in this test)");
            }
        });
        GrantRecorder onOwnThread = new GrantRecorder();
        GrantRecorder onExecutor = new GrantRecorder();
        latch.addListener(onOwnThread);
        ExecutorService userExecutor = Executors.newSingleThreadExecutor(r -> new Thread(r, "user-executor"));
        toClose.push(userExecutor::shutdownNow);
        latch.addListener(onExecutor, userExecutor);
        latch.start();

        GrantRecorder.Event own = onOwnThread.next(Zk.WAIT);
        GrantRecorder.Event user = onExecutor.next(Zk.WAIT);
        assertThat(own.acquired()).isTrue();
        assertThat(own.thread()).isEqualTo("leasehold-latch-p");
        assertThat(user.thread()).isEqualTo("user-executor");
        latch.close();
        assertThat(onOwnThread.nextLost()).isEqualTo(own.token());
        assertThat(onExecutor.nextLost()).isEqualTo(own.token());
        Zk.awaitDeleted(observer, own.token().path()); // released on close (Curator deletes it in the background)
    }

    @Test
    void closeIsIdempotentAndAwaitEndsWhenClosed() throws Exception {
        CuratorFramework a = closeLater(Zk.client(server.getConnectString()));
        CuratorFramework b = closeLater(Zk.client(server.getConnectString()));
        GrantRecorder recA = new GrantRecorder();
        latch(a, "a", recA);
        recA.nextAcquired();
        FencedLeaderLatch follower = latch(b, "b", new GrantRecorder());
        Zk.awaitChildren(observer, PATH, 2);

        assertThat(follower.await(0, TimeUnit.SECONDS)).isFalse();
        follower.close();
        follower.close();
        assertThat(follower.await(5, TimeUnit.SECONDS)).isFalse();
        assertThat(follower.hasLeadership()).isFalse();
        Zk.awaitChildren(observer, PATH, 1);
    }
}
