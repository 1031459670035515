package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Threads, close and the reasons a grant ends. */
@Timeout(120)
class LatchLifecycleTest extends ZkTestCase {

    private static final String PATH = "/lifecycle/leader";

    @Override
    int tickMs() {
        return Zk.LONG_TICK_MS;
    }

    /** Records the causes too. */
    private static final class CauseRecorder implements FencedLeaderListener {
        final BlockingQueue<Object> events = new LinkedBlockingQueue<>();
        final AtomicReference<Thread> thread = new AtomicReference<>();

        @Override
        public void leadershipAcquired(FencingToken token) {
            thread.set(Thread.currentThread());
            events.add(token);
        }

        @Override
        public void leadershipLost(FencingToken token, LossCause cause) {
            events.add(cause);
        }

        Object next() throws InterruptedException {
            Object event = events.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(event).as("an event within %s", Zk.WAIT).isNotNull();
            return event;
        }
    }

    @Test
    void anIdleLatchHoldsNoThread() throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        FencedLeaderLatch latch = closeLater(new FencedLeaderLatch(client, PATH, "idle"));
        CauseRecorder recorder = new CauseRecorder();
        latch.addListener(recorder);
        latch.start();
        assertThat(recorder.next()).isInstanceOf(FencingToken.class);
        Thread recipeThread = recorder.thread.get();
        assertThat(recipeThread.getName()).isEqualTo("leasehold-latch-idle");

        recipeThread.join(Zk.WAIT.toMillis()); // it ends on its own once idle for RecipeThread.KEEP_ALIVE
        assertThat(recipeThread.isAlive())
                .as("the recipe's thread of an idle latch")
                .isFalse();
        assertThat(latch.hasLeadership())
                .as("leadership does not need the thread")
                .isTrue();
    }

    @Test
    void aLossSaysWhyItHappened() throws Exception {
        CuratorFramework client =
                closeLater(Zk.started(Zk.builder(server.getConnectString()).sessionTimeoutMs(Zk.LONG_SESSION_MS)));
        FencedLeaderLatch latch = closeLater(new FencedLeaderLatch(client, PATH, "p"));
        CauseRecorder recorder = new CauseRecorder();
        latch.addListener(recorder);
        latch.start();
        FencingToken token = (FencingToken) recorder.next();

        server.stop();
        assertThat(recorder.next()).isEqualTo(LossCause.SUSPENDED);
        server.restart();
        assertThat(recorder.next()).as("same session, same node, same token").isEqualTo(token);

        latch.close();
        assertThat(recorder.next()).isEqualTo(LossCause.CLOSED);
    }

    /** The old one-argument method is still called when only it is implemented. */
    @Test
    void aListenerWithOnlyTheOneArgumentLossMethodIsStillTold() throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        FencedLeaderLatch latch = closeLater(new FencedLeaderLatch(client, PATH, "p"));
        GrantRecorder recorder = new GrantRecorder();
        latch.addListener(recorder);
        latch.start();
        FencingToken token = recorder.nextAcquired();
        latch.close();
        assertThat(recorder.nextLost()).isEqualTo(token);
    }

    /** Was: the node was released while a listener on the user's executor was still told leadershipLost. */
    @Test
    void closeWaitsForListenersOnTheirOwnExecutorsBeforeReleasingTheNode() throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        FencedLeaderLatch latch = closeLater(new FencedLeaderLatch(client, PATH, "p"));
        ExecutorService userExecutor = Executors.newSingleThreadExecutor();
        toClose.push(userExecutor::shutdownNow);
        CountDownLatch acquired = new CountDownLatch(1);
        CountDownLatch lostRunning = new CountDownLatch(1);
        CountDownLatch finishLost = new CountDownLatch(1);
        AtomicReference<Boolean> nodeExistedDuringLost = new AtomicReference<>();
        latch.addListener(
                new FencedLeaderListener() {
                    @Override
                    public void leadershipAcquired(FencingToken token) {
                        acquired.countDown();
                    }

                    @Override
                    public void leadershipLost(FencingToken token) {
                        lostRunning.countDown();
                        try {
                            finishLost.await();
                            nodeExistedDuringLost.set(observer.checkExists().forPath(token.path()) != null);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }
                },
                userExecutor);
        latch.start();
        assertThat(acquired.await(20, TimeUnit.SECONDS)).isTrue();
        String node = latch.currentToken().orElseThrow().path();

        Thread closing = new Thread(latch::close, "closing");
        closing.start();
        assertThat(lostRunning.await(20, TimeUnit.SECONDS)).isTrue();
        finishLost.countDown();
        closing.join(Zk.WAIT.toMillis());
        assertThat(closing.isAlive()).isFalse();
        assertThat(nodeExistedDuringLost.get())
                .as("our node, while leadershipLost still ran")
                .isTrue();
        Zk.awaitDeleted(observer, node);
    }

    /** Was: close() on ZooKeeper's event thread waited up to 10 s for the listeners, stalling every recipe. */
    @Test
    void closeOnZooKeepersEventThreadDoesNotWaitAndTheNodeGoesOnceListenersReturn() throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        FencedLeaderLatch latch = closeLater(new FencedLeaderLatch(client, PATH, "p"));
        CountDownLatch lostRunning = new CountDownLatch(1);
        CountDownLatch finishLost = new CountDownLatch(1);
        CountDownLatch blockerAcquired = new CountDownLatch(1);
        GrantRecorder recorder = new GrantRecorder();
        latch.addListener(recorder);
        latch.addListener(new FencedLeaderListener() {
            @Override
            public void leadershipAcquired(FencingToken token) {
                blockerAcquired.countDown();
            }

            @Override
            public void leadershipLost(FencingToken token) {
                lostRunning.countDown();
                try {
                    finishLost.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        latch.start();
        FencingToken token = recorder.nextAcquired();
        // Both listeners told: a close between the two would (rightly) leave the second one told nothing at all.
        assertThat(blockerAcquired.await(20, TimeUnit.SECONDS)).isTrue();

        CountDownLatch closeReturned = new CountDownLatch(1);
        AtomicReference<String> closedOn = new AtomicReference<>();
        client.checkExists()
                .inBackground((c, event) -> {
                    closedOn.set(Thread.currentThread().getName());
                    latch.close();
                    closeReturned.countDown();
                })
                .forPath("/");
        assertThat(lostRunning.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(closeReturned.await(20, TimeUnit.SECONDS))
                .as("close() returned while a listener still runs")
                .isTrue();
        assertThat(closedOn.get()).endsWith("-EventThread");
        assertThat(observer.checkExists().forPath(token.path()))
                .as("the node, while listeners run")
                .isNotNull();
        finishLost.countDown();
        Zk.awaitDeleted(observer, token.path());
    }

    @Test
    void currentLeaderNamesTheLeaderWithItsTokenAndSession() throws Exception {
        CuratorFramework a = closeLater(Zk.client(server.getConnectString()));
        CuratorFramework b = closeLater(Zk.client(server.getConnectString()));
        FencedLeaderLatch leader = closeLater(new FencedLeaderLatch(a, PATH, "a"));
        leader.start();
        assertThat(leader.await(20, TimeUnit.SECONDS)).isTrue();
        FencedLeaderLatch follower = closeLater(new FencedLeaderLatch(b, PATH, "b"));
        follower.start();
        Zk.awaitChildren(observer, PATH, 2);

        LeaderInfo info = follower.currentLeader().orElseThrow();
        assertThat(info.participantId()).isEqualTo("a");
        assertThat(info.token()).isEqualTo(leader.currentToken().orElseThrow());
        assertThat(info.token().value())
                .isEqualTo(leader.currentToken().orElseThrow().value());
        assertThat(info.sessionId())
                .isEqualTo(a.getZookeeperClient().getZooKeeper().getSessionId());
        assertThat(info).isEqualTo(leader.currentLeader().orElseThrow());
    }

    /** A listener on the user's executor that closes the latch: close() must not wait for that very call. */
    @Test
    void aListenerOnAnExecutorThatClosesTheLatchDoesNotWaitForItself() throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        FencedLeaderLatch latch = closeLater(new FencedLeaderLatch(client, PATH, "p", Duration.ofMinutes(1)));
        ExecutorService userExecutor = Executors.newCachedThreadPool();
        toClose.push(userExecutor::shutdownNow);
        CountDownLatch closeReturned = new CountDownLatch(1);
        BlockingQueue<FencingToken> lost = new LinkedBlockingQueue<>();
        latch.addListener(
                new FencedLeaderListener() {
                    @Override
                    public void leadershipAcquired(FencingToken token) {
                        latch.close();
                        closeReturned.countDown();
                    }

                    @Override
                    public void leadershipLost(FencingToken token) {
                        lost.add(token);
                    }
                },
                userExecutor);
        latch.start();
        assertThat(closeReturned.await(20, TimeUnit.SECONDS))
                .as("close() returned well within its 1-minute wait")
                .isTrue();
        FencingToken token = lost.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(token).isNotNull();
        Zk.awaitDeleted(observer, token.path());
    }
}
