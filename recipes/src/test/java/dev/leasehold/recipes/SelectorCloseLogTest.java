package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/**
 * Closing selectors, then their clients, leaves no ERROR line of Curator's. Timeline: three participants on three
 * clients lead in turn with brief work and queue again at once (autoRequeue), so at the close each is leading, or
 * Curator is releasing its node, or queueing it anew (a create in flight); each selector closes, then its client.
 * Before: {@code ERROR LeaderSelector - The leader threw an exception} (an {@code InterruptedException} in the
 * release's delete: the close interrupted the thread a second time) and {@code ERROR
 * FindAndDeleteProtectedNodeInBackground - Could not start guaranteed delete} (a requeued create interrupted by the
 * close, its clean-up answered after the client closed).
 */
class SelectorCloseLogTest extends ZkTestCase {

    private static final String PATH = "/app/closing";

    @Test
    void closingRequeueingSelectorsThenTheirClientsLogsNoCuratorError() throws Exception {
        PrintStream stderr = System.err;
        ByteArrayOutputStream logged = new ByteArrayOutputStream();
        System.setErr(new PrintStream(logged, true, StandardCharsets.UTF_8)); // slf4j-simple writes to System.err
        try {
            for (int round = 0; round < 2; round++) {
                closeWhileRequeueing(round);
            }
        } finally {
            System.setErr(stderr);
        }
        String text = logged.toString(StandardCharsets.UTF_8);
        stderr.print(text);
        assertThat(text)
                .doesNotContain("Could not start guaranteed delete")
                .doesNotContain("The leader threw an exception")
                .doesNotContain(" ERROR ");
    }

    private void closeWhileRequeueing(int round) throws Exception {
        Set<Thread> before = eventThreads(); // the observer's, which stays open
        BlockingQueue<FencingToken> grants = new LinkedBlockingQueue<>();
        List<CuratorFramework> clients = new ArrayList<>();
        List<FencedLeaderSelector> selectors = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            CuratorFramework client = Zk.client(server.getConnectString());
            FencedLeaderSelector selector =
                    new FencedLeaderSelector(client, PATH, "r" + round + "-" + i, (c, token) -> grants.add(token));
            selector.autoRequeue();
            selector.start();
            clients.add(client);
            selectors.add(selector);
        }
        for (int i = 0; i < 9; i++) { // every participant led, and queued again, a few times
            assertThat(grants.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isNotNull();
        }
        for (int i = 0; i < 3; i++) {
            selectors.get(i).close();
            clients.get(i).close();
        }
        for (Thread thread : eventThreads()) { // the closed clients' last callbacks (and their log lines) ran
            if (!before.contains(thread)) {
                thread.join(Zk.WAIT.toMillis());
                assertThat(thread.isAlive()).as("%s ended", thread).isFalse();
            }
        }
    }

    private static Set<Thread> eventThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().endsWith("-EventThread"))
                .collect(Collectors.toSet());
    }
}
