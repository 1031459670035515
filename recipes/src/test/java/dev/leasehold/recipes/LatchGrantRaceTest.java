package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.utils.ZKPaths;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Curator 5.9.0's LeaderLatch can report leadership for a node it has already replaced: the index-0 branch of
 * {@code checkLeadership} sends {@code getData(N1)} and, in its answer, sets {@code lastPathIsLeader = N1} and
 * leadership without checking that N1 is still our node. Driven here with Curator's own test hooks.
 */
@Timeout(120)
class LatchGrantRaceTest extends ZkTestCase {

    private static final String PATH = "/race/leader";

    /**
     * Timeline: N1 created; Curator lists N1 as lowest and sends getData(N1); its answer is held on the event
     * thread; reset() deletes N1 and creates N2; the held answer is released and Curator reports leadership for the
     * dead N1; N2's own win comes later (its create answer held) and Curator reports nothing, since it already
     * "leads". The recipe must end up holding N2's token.
     */
    @Test
    void aLeaderWhoseNodeWasReplacedUnderCuratorsReportEndsUpWithTheTokenOfItsCurrentNode() throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        replacedNodeUnderCuratorsReport(client, closeLater(new FencedLeaderLatch(client, PATH, "p")));
    }

    /**
     * The same timeline with the client view disabled (a Curator whose answers the recipe cannot see): no answer
     * re-triggers the check after the report for the dead N1, so only Curator's callbacks and the recipe's own
     * bounded re-check can bring it to N2's token (issue 22, item 4).
     */
    @Test
    void withoutTheClientViewTheSameLeaderIsNotLeftTokenless() throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        replacedNodeUnderCuratorsReport(client, closeLater(FencedLeaderLatch.withoutClientView(client, PATH, "p")));
    }

    private void replacedNodeUnderCuratorsReport(CuratorFramework client, FencedLeaderLatch recipe) throws Exception {
        LeaderLatch curator = curatorLatchOf(recipe);

        CountDownLatch answerHeld = new CountDownLatch(1);
        CountDownLatch releaseAnswer = new CountDownLatch(1);
        // Runs on the event thread as checkLeadership starts, before it captures our path and sends getData(N1):
        // queue a request of our own whose answer blocks the event thread, so getData(N1)'s answer waits behind it.
        setDebugLatch(curator, "debugCheckLeaderShipLatch", new OneShotHook(() -> {
            setDebugLatch(curator, "debugCheckLeaderShipLatch", null);
            try {
                client.checkExists()
                        .inBackground((c, e) -> {
                            answerHeld.countDown();
                            releaseAnswer.await();
                        })
                        .forPath("/");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }));
        recipe.start();
        assertThat(answerHeld.await(20, TimeUnit.SECONDS))
                .as("getData(N1) sent and its answer held")
                .isTrue();
        String n1 = curator.getOurPath();

        CountDownLatch n2Created = new CountDownLatch(1);
        CountDownLatch releaseN2 = new CountDownLatch(1);
        setDebugLatch(curator, "debugResetWaitLatch", new WaitingHook(n2Created, releaseN2));
        Method reset = LeaderLatch.class.getDeclaredMethod("reset");
        reset.setAccessible(true);
        reset.invoke(curator); // deletes N1 and creates N2, both behind the held answer
        releaseAnswer.countDown(); // Curator now reports leadership for N1, which is gone
        assertThat(n2Created.await(20, TimeUnit.SECONDS)).isTrue();
        // Simulated delay, not synchronisation: N2's win comes 2 s after the report for N1 (the original recipe
        // re-read N1 for about 775 ms, then gave up for good).
        Thread.sleep(2_000);
        releaseN2.countDown();

        assertThat(recipe.await(20, TimeUnit.SECONDS))
                .as("the recipe leads with a token")
                .isTrue();
        String n2 = curator.getLastPathIsLeader();
        assertThat(n2).isNotEqualTo(n1);
        List<String> children = observer.getChildren().forPath(PATH);
        assertThat(children).containsExactly(ZKPaths.getNodeFromPath(n2));
        FencingToken token = recipe.currentToken().orElseThrow();
        assertThat(token.path()).isEqualTo(n2);
        assertThat(token.value()).isEqualTo(Zk.czxid(observer, n2));
    }

    static LeaderLatch curatorLatchOf(FencedLeaderLatch recipe) throws ReflectiveOperationException {
        Field field = FencedLeaderLatch.class.getDeclaredField("latch");
        field.setAccessible(true);
        return ((ReplaceableLatch) field.get(recipe)).current();
    }

    private static void setDebugLatch(LeaderLatch latch, String name, CountDownLatch value) {
        try {
            Field field = LeaderLatch.class.getDeclaredField(name);
            field.setAccessible(true);
            field.set(latch, value);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A Curator debug latch that runs an action instead of waiting. */
    private static final class OneShotHook extends CountDownLatch {
        private final Runnable action;

        OneShotHook(Runnable action) {
            super(0);
            this.action = action;
        }

        @Override
        public void await() {
            action.run();
        }
    }

    /** A Curator debug latch that says it was reached, then waits to be released. */
    private static final class WaitingHook extends CountDownLatch {
        private final CountDownLatch reached;
        private final CountDownLatch release;

        WaitingHook(CountDownLatch reached, CountDownLatch release) {
            super(0);
            this.reached = reached;
            this.release = release;
        }

        @Override
        public void await() throws InterruptedException {
            reached.countDown();
            release.await();
        }
    }
}
