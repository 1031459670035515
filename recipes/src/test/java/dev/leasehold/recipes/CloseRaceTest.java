package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateErrorPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** close() from a listener, and close() racing start(): no orphan node, no acquired after lost. */
@Timeout(120)
class CloseRaceTest extends ZkTestCase {

    private static final String PATH = "/close/leader";

    /** L1 closes the latch inside leadershipAcquired; L2, registered after it, must never see lost before acquired. */
    @Test
    void aListenerThatClosesTheLatchLeavesEveryOtherListenerWithNothingOrAcquiredThenLost() throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        FencedLeaderLatch latch = closeLater(new FencedLeaderLatch(client, PATH, "p"));
        GrantRecorder first = new GrantRecorder();
        latch.addListener(new FencedLeaderListener() {
            @Override
            public void leadershipAcquired(FencingToken token) {
                first.leadershipAcquired(token);
                latch.close();
            }

            @Override
            public void leadershipLost(FencingToken token) {
                first.leadershipLost(token);
            }
        });
        GrantRecorder second = new GrantRecorder();
        latch.addListener(second);
        latch.start();

        FencingToken token = first.nextAcquired();
        assertThat(first.nextLost()).isEqualTo(token);
        Zk.awaitChildren(observer, PATH, 0); // released once the listeners returned
        // Every event the latch will ever deliver is in: the latch is closed and its node is gone.
        if (!second.isEmpty()) {
            assertThat(second.nextAcquired()).isEqualTo(token);
            assertThat(second.nextLost()).isEqualTo(token);
        }
        assertThat(second.isEmpty()).isTrue();
    }

    /** A close() between start()'s state change and Curator's start must leave no node behind, ever. */
    @Test
    void aLatchClosedWhileStartingNeverLeavesANodeInTheElection() throws Exception {
        StartGate gate = new StartGate();
        CuratorFramework gated =
                closeLater(Zk.started(Zk.builder(server.getConnectString()).connectionStateErrorPolicy(gate)));
        FencedLeaderLatch latch = new FencedLeaderLatch(gated, PATH, "closed-while-starting");
        Thread starting = gate.startIn(latch::start);
        latch.close();
        gate.release(starting);

        assertNoNodeOfTheClosedParticipantBlocksANewcomer();
    }

    @Test
    void aSelectorClosedWhileStartingNeverLeavesANodeInTheElection() throws Exception {
        StartGate gate = new StartGate();
        CuratorFramework gated =
                closeLater(Zk.started(Zk.builder(server.getConnectString()).connectionStateErrorPolicy(gate)));
        FencedLeaderSelector selector =
                new FencedLeaderSelector(gated, PATH, "closed-while-starting", (c, token) -> {});
        Thread starting = gate.startIn(selector::start);
        selector.close();
        gate.release(starting);
        assertThat(gate.failure.get()).as("start() racing close()").isNull();

        assertNoNodeOfTheClosedParticipantBlocksANewcomer();
    }

    private void assertNoNodeOfTheClosedParticipantBlocksANewcomer() throws Exception {
        CuratorFramework other = closeLater(Zk.client(server.getConnectString()));
        FencedLeaderLatch newcomer = closeLater(new FencedLeaderLatch(other, PATH, "newcomer"));
        newcomer.start();
        assertThat(newcomer.await(20, TimeUnit.SECONDS))
                .as("the newcomer leads: no orphan node before it")
                .isTrue();
        List<String> children = observer.getChildren().forPath(PATH);
        assertThat(children).hasSize(1);
    }

    /**
     * An error policy (Standard's answers) whose first question from the starting thread waits for the test: the
     * recipe asks it inside start(), after its own state change and before Curator's latch starts.
     */
    private static final class StartGate implements ConnectionStateErrorPolicy {
        final CountDownLatch asked = new CountDownLatch(1);
        final CountDownLatch proceed = new CountDownLatch(1);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        volatile Thread gatedThread;

        @Override
        public boolean isErrorState(ConnectionState state) {
            if (Thread.currentThread() == gatedThread) {
                gatedThread = null;
                asked.countDown();
                try {
                    proceed.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return state == ConnectionState.SUSPENDED || state == ConnectionState.LOST;
        }

        Thread startIn(Runnable start) throws InterruptedException {
            Thread thread = new Thread(
                    () -> {
                        try {
                            start.run();
                        } catch (Throwable e) {
                            failure.set(e);
                        }
                    },
                    "starting");
            gatedThread = thread;
            thread.start();
            assertThat(asked.await(20, TimeUnit.SECONDS))
                    .as("start() reached the gate")
                    .isTrue();
            return thread;
        }

        void release(Thread starting) throws InterruptedException {
            proceed.countDown();
            starting.join(TimeUnit.SECONDS.toMillis(20));
            assertThat(starting.isAlive()).isFalse();
        }
    }
}
