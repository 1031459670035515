package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The latch with its client view disabled ({@link FencedLeaderLatch#withoutClientView}), as under a Curator whose
 * requests the view cannot see: the token still comes from the leading node's Stat (read once), and a leader change
 * still moves the token (issue 22, item 4).
 */
@Timeout(120)
class WithoutClientViewTest extends ZkTestCase {

    private static final String PATH = "/noview/leader";

    @Test
    void aLatchWithoutTheViewLeadsWithItsNodesCzxidAndHandsOverOnClose() throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        FencedLeaderLatch first = closeLater(FencedLeaderLatch.withoutClientView(client, PATH, "first"));
        first.start();
        assertThat(first.await(20, TimeUnit.SECONDS)).as("first leads").isTrue();
        FencingToken firstToken = first.currentToken().orElseThrow();
        LeaderLatch curatorFirst = LatchGrantRaceTest.curatorLatchOf(first);
        assertThat(firstToken.path()).isEqualTo(ElectionNodes.fullPath(client, curatorFirst.getLastPathIsLeader()));
        assertThat(firstToken.value()).isEqualTo(Zk.czxid(observer, firstToken.path()));

        FencedLeaderLatch second = closeLater(FencedLeaderLatch.withoutClientView(client, PATH, "second"));
        second.start();
        Zk.awaitChildren(observer, PATH, 2);
        assertThat(second.hasLeadership()).as("a follower holds no token").isFalse();
        first.close();
        assertThat(second.await(20, TimeUnit.SECONDS)).as("second takes over").isTrue();
        FencingToken secondToken = second.currentToken().orElseThrow();
        assertThat(secondToken.value()).isEqualTo(Zk.czxid(observer, secondToken.path()));
        assertThat(secondToken.value()).isGreaterThan(firstToken.value());
    }

    /**
     * The selector without the view takes the two-read grant: two selectors sharing one client (one session) each
     * lead, one after the other, with the czxid of the node that carries their own id.
     */
    @Test
    void selectorsWithoutTheViewLeadWithTheirOwnNodesCzxid() throws Exception {
        CuratorFramework shared = closeLater(Zk.client(server.getConnectString()));
        BlockingQueue<FencingToken> tokens = new LinkedBlockingQueue<>();
        CountDownLatch releaseA = new CountDownLatch(1);
        CountDownLatch releaseB = new CountDownLatch(1);
        FencedLeaderSelectorListener work = (client, token) -> {
            tokens.add(token);
            (token.participantId().equals("a") ? releaseA : releaseB).await(); // hold leadership until released
        };
        FencedLeaderSelector a = closeLater(FencedLeaderSelector.withoutClientView(shared, "/noview/sel", "a", work));
        a.start();
        FencingToken first = tokens.poll(20, TimeUnit.SECONDS);
        assertThat(first).as("a leads").isNotNull();
        assertThat(first.participantId()).isEqualTo("a");
        assertThat(first.value()).isEqualTo(Zk.czxid(observer, first.path()));

        FencedLeaderSelector b = closeLater(FencedLeaderSelector.withoutClientView(shared, "/noview/sel", "b", work));
        b.start();
        Zk.awaitChildren(observer, "/noview/sel", 2);
        releaseA.countDown();
        FencingToken second = tokens.poll(20, TimeUnit.SECONDS);
        assertThat(second).as("b leads after a").isNotNull();
        assertThat(second.participantId()).isEqualTo("b");
        assertThat(second.value()).isEqualTo(Zk.czxid(observer, second.path()));
        assertThat(second.value()).isGreaterThan(first.value());
        assertThat(new String(observer.getData().forPath(second.path()))).isEqualTo("b");
        releaseB.countDown();
    }
}
