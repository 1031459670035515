package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * After an outage, every participant can lead again: the election never sticks, whichever Curator 5.4 to 5.9 runs
 * it. Older Curators' latches have defects that leave a participant stuck (see {@code docs/curator-compatibility.md});
 * these are the outages that showed them. Tagged {@value #TAG}: the Curator matrix runs these on every version.
 */
@Tag(ElectionLivenessTest.TAG)
@Timeout(120)
class ElectionLivenessTest extends ZkTestCase {

    /** The JUnit tag of the tests the Curator matrix runs on every version. */
    static final String TAG = "liveness";

    private static final String PATH = "/liveness/leader";
    private static final int PARTICIPANTS = 3;

    private final List<CuratorFramework> clients = new ArrayList<>();
    private final List<FencedLeaderLatch> latches = new ArrayList<>();
    /** Every participant's grants, in the order they were told. */
    private final BlockingQueue<FencingToken> grants = new LinkedBlockingQueue<>();

    private void join(int participants) throws Exception {
        for (int i = 0; i < participants; i++) {
            CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
            FencedLeaderLatch latch = closeLater(new FencedLeaderLatch(client, PATH, "p-" + i));
            latch.addListener(grants::add);
            latch.start();
            clients.add(client);
            latches.add(latch);
            Zk.awaitChildren(observer, PATH, i + 1);
        }
    }

    /** Counts down when every participant's client reported its session LOST. */
    private CountDownLatch allSessionsLost() {
        CountDownLatch lost = new CountDownLatch(clients.size());
        for (CuratorFramework client : clients) {
            CountDownLatch once = new CountDownLatch(1);
            client.getConnectionStateListenable().addListener((c, state) -> {
                if (state == ConnectionState.LOST && once.getCount() > 0) {
                    once.countDown();
                    lost.countDown();
                }
            });
        }
        return lost;
    }

    /**
     * Whoever leads is closed, and the next must be granted, until every participant has led: a participant stuck
     * without a node, or leading in Curator's eyes with a node that is not its own, makes a grant never come.
     * Tokens increase from one grant to the next and each is its node's czxid.
     */
    private void everyParticipantLeadsInTurn(String after) throws Exception {
        Set<String> led = new HashSet<>();
        long previous = 0;
        while (led.size() < latches.size()) {
            FencingToken token = nextGrantOfANewLeader(led, after);
            assertThat(token.value())
                    .as("after %s: tokens increase from one leader to the next", after)
                    .isGreaterThan(previous)
                    .isEqualTo(Zk.czxid(observer, token.path()));
            previous = token.value();
            led.add(token.participantId());
            FencedLeaderLatch leader = latches.stream()
                    .filter(l -> l.participantId().equals(token.participantId()))
                    .findFirst()
                    .orElseThrow();
            leader.close();
        }
    }

    /** The next grant to a participant that has not led yet (a re-grant of one node after a reconnect is skipped). */
    private FencingToken nextGrantOfANewLeader(Set<String> led, String after) throws InterruptedException {
        while (true) {
            FencingToken token = grants.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(token)
                    .as("after %s: a grant within %s; participants that led since: %s", after, Zk.WAIT, led)
                    .isNotNull();
            if (!led.contains(token.participantId())) {
                return token;
            }
        }
    }

    /**
     * CURATOR-696 (fixed in 5.7.0). Timeline: three participants, one leads; the server stops for longer than the
     * session timeout, so every client declares its session LOST; the server restarts with its data, still holding
     * the old sessions' nodes until it expires them. A Curator before 5.7.0 reconnects with a new session, lists the
     * children, finds its old node lowest and leads with it; the server then deletes that node, and the latch
     * leads on with a node that is gone and was never its session's: no token (the recipe checks the owner), and it
     * never takes part again. Every participant must still lead in turn.
     */
    @Test
    void everyParticipantLeadsInTurnAfterAnOutageLongerThanTheSession() throws Exception {
        join(PARTICIPANTS);
        assertThat(grants.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS).participantId())
                .isEqualTo("p-0");
        CountDownLatch lost = allSessionsLost();

        server.stop();
        assertThat(lost.await(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS))
                .as("every session LOST")
                .isTrue();
        server.restart();

        everyParticipantLeadsInTurn("an outage longer than the session");
    }

    /**
     * CURATOR-724 (fixed in 5.8.0). Timeline: three participants, one leads; the server is rebuilt with empty data
     * on the same port (a wiped data directory, a fresh ensemble); every session is gone, and so is the election's
     * path. A Curator before 5.8.0 reconnects, lists the children of a path that no longer exists, gets NONODE and
     * does nothing more: no participant ever creates a node again. Every participant must still lead in turn.
     * (Tokens start low again on a rebuilt server: czxid restarts with its history, see ZOOKEEPER-FACTS.)
     */
    @Test
    void everyParticipantLeadsInTurnAfterTheServerIsRebuiltWithEmptyData() throws Exception {
        join(PARTICIPANTS);
        assertThat(grants.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS).participantId())
                .isEqualTo("p-0");
        CountDownLatch lost = allSessionsLost();

        int port = server.getPort();
        server.close(); // deletes its data directory
        server = new TestingServer(new InstanceSpec(null, port, -1, -1, true, -1, tickMs(), -1), true);
        assertThat(lost.await(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS))
                .as("every session LOST")
                .isTrue();

        everyParticipantLeadsInTurn("the server was rebuilt with empty data");
    }
}
