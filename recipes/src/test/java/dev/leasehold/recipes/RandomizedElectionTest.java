package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.testkit.TcpProxy;
import java.io.Closeable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A bounded, seeded run of participants with random closes, rejoins and server-side expiries. The seed fixes the
 * actions; thread timing may still differ, so replay a failure with {@code -Dleasehold.seed=N} and read its log.
 */
@Tag(ElectionLivenessTest.TAG)
@Timeout(240)
class RandomizedElectionTest {

    private static final String PATH = "/random/leader";
    private static final int PARTICIPANTS = 5;
    private static final int STEPS = 14;

    private record Grant(int participant, FencingToken token) {}

    private final class Participant {
        final int index;
        final TcpProxy proxy;
        final CuratorFramework client;
        FencedLeaderLatch latch;

        Participant(int index, TestingServer server) throws Exception {
            this.index = index;
            this.proxy = closeLater(TcpProxy.to(server.getConnectString()));
            this.client = closeLater(Zk.client(proxy.connectString()));
        }

        void join() {
            latch = new FencedLeaderLatch(client, PATH, "p-" + index);
            latch.addListener(new FencedLeaderListener() {
                @Override
                public void leadershipAcquired(FencingToken token) {
                    grants.add(new Grant(index, token));
                }

                @Override
                public void leadershipLost(FencingToken token) {}
            });
            latch.start();
        }

        void leave() {
            latch.close();
            latch = null;
        }
    }

    private final Deque<Closeable> toClose = new ArrayDeque<>();
    private final BlockingQueue<Grant> grants = new LinkedBlockingQueue<>();

    private <T extends Closeable> T closeLater(T closeable) {
        toClose.push(closeable);
        return closeable;
    }

    @Test
    void tokensOfSuccessiveGrantsStrictlyIncrease() throws Exception {
        long seed = Long.getLong("leasehold.seed", System.nanoTime());
        System.out.println("RandomizedElectionTest seed=" + seed + " (replay with -Dleasehold.seed=" + seed + ")");
        Random random = new Random(seed);
        List<String> log = new ArrayList<>();
        try (TestingServer server = Zk.server();
                CuratorFramework observer = Zk.client(server.getConnectString())) {
            List<Participant> participants = new ArrayList<>();
            for (int i = 0; i < PARTICIPANTS; i++) {
                Participant p = new Participant(i, server);
                participants.add(p);
                p.join();
                Zk.awaitChildren(observer, PATH, i + 1);
            }
            Grant current = nextGrant(seed, log);
            assertThat(current.participant()).isZero();
            for (int step = 0; step < STEPS; step++) {
                Participant leader = participants.get(current.participant());
                int action = random.nextInt(3);
                if (action == 0) {
                    log.add("close leader p-" + leader.index);
                    leader.leave();
                } else if (action == 1) {
                    log.add("expire leader p-" + leader.index + " on the server (silent connection)");
                    leader.proxy.silence();
                } else {
                    List<Participant> out =
                            participants.stream().filter(p -> p.latch == null).toList();
                    Participant back = out.isEmpty() ? leader : out.get(random.nextInt(out.size()));
                    if (back.latch != null) {
                        back.leave();
                    }
                    log.add("p-" + back.index + " (re)joins, then the leader p-" + leader.index + " closes");
                    back.join();
                    if (back != leader) {
                        leader.leave();
                    }
                }
                Grant next = nextGrant(seed, log);
                log.add("  grant -> p-" + next.participant() + " token "
                        + next.token().value());
                assertThat(next.token().value())
                        .as("seed=%d: successive grants must increase; %s", seed, log)
                        .isGreaterThan(current.token().value());
                assertThat(next.token().value())
                        .as("seed=%d: token is the leader node's czxid; %s", seed, log)
                        .isEqualTo(Zk.czxid(observer, next.token().path()));
                leader.proxy.resume();
                if (participants.stream().filter(p -> p.latch != null).count() < 2) {
                    Participant rejoin = participants.stream()
                            .filter(p -> p.latch == null)
                            .findFirst()
                            .orElseThrow();
                    rejoin.join();
                    log.add("p-" + rejoin.index + " rejoins to keep a follower");
                }
                current = next;
            }
            for (Participant p : participants) {
                if (p.latch != null) {
                    p.leave();
                }
            }
        } finally {
            while (!toClose.isEmpty()) {
                toClose.pop().close();
            }
        }
    }

    private Grant last;

    /**
     * The next grant to a different node. A participant whose session survived a reconnect (a stall on a busy
     * machine) is granted again on the same node with the same token: that is the same grant, not a new one.
     */
    private Grant nextGrant(long seed, List<String> log) throws InterruptedException {
        while (true) {
            Grant grant = grants.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(grant)
                    .as("seed=%d: a grant within %s after %s", seed, Zk.WAIT, log)
                    .isNotNull();
            if (last != null && grant.token().path().equals(last.token().path())) {
                assertThat(grant.token().value())
                        .as("seed=%d: same node, same token", seed)
                        .isEqualTo(last.token().value());
                log.add("  (p-" + grant.participant() + " granted again on the same node after a reconnect)");
                continue;
            }
            last = grant;
            return grant;
        }
    }
}
