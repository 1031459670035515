package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Bad arguments are rejected with a message naming the argument, and nothing is created in ZooKeeper. */
@Timeout(60)
class BadInputTest {

    private static final FencedLeaderSelectorListener NO_WORK = (client, token) -> {};

    private static TestingServer server;
    private static CuratorFramework client;

    @BeforeAll
    static void start() throws Exception {
        server = Zk.server();
        client = Zk.client(server.getConnectString());
    }

    @AfterAll
    static void stop() throws Exception {
        client.close();
        server.close();
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(
            strings = {
                "",
                "  ",
                "relative/path",
                "/trailing/",
                "/double//slash",
                "/dot/./segment",
                "/dotdot/../segment",
                "/",
                "/nul\u0000char"
            })
    void badPathsAreRejectedByBothRecipes(String path) throws Exception {
        List<String> before = client.getChildren().forPath("/");
        assertThatThrownBy(() -> new FencedLeaderLatch(client, path, "id"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("latchPath");
        assertThatThrownBy(() -> new FencedLeaderSelector(client, path, "id", NO_WORK))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaderPath");
        // Nothing was created (an empty container left by an earlier test may be reaped meanwhile: hence a subset).
        assertThat(client.getChildren().forPath("/")).isSubsetOf(before);
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"", " ", "\t"})
    void blankParticipantIdsAreRejected(String id) throws Exception {
        assertThatThrownBy(() -> new FencedLeaderLatch(client, "/ok", id))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("participantId must be a non-blank string");
        assertThatThrownBy(() -> new FencedLeaderSelector(client, "/ok", id, NO_WORK))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("participantId must be a non-blank string");
        assertThat(client.checkExists().forPath("/ok")).isNull();
    }

    @Test
    void nullClientAndListenerAreRejected() {
        assertThatThrownBy(() -> new FencedLeaderLatch(null, "/ok", "id"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("client must not be null");
        assertThatThrownBy(() -> new FencedLeaderSelector(null, "/ok", "id", NO_WORK))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("client must not be null");
        assertThatThrownBy(() -> new FencedLeaderSelector(client, "/ok", "id", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("listener must not be null");
        try (FencedLeaderLatch latch = new FencedLeaderLatch(client, "/ok", "id")) {
            assertThatThrownBy(() -> latch.addListener(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("listener must not be null");
            assertThatThrownBy(() -> latch.addListener(new GrantRecorder(), null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("executor must not be null");
        }
    }

    @Test
    void aClientThatWasNeverStartedIsRejectedAndNothingIsCreated() throws Exception {
        try (CuratorFramework neverStarted =
                CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(10))) {
            FencedLeaderLatch latch = new FencedLeaderLatch(neverStarted, "/never/latch", "id");
            FencedLeaderSelector selector = new FencedLeaderSelector(neverStarted, "/never/selector", "id", NO_WORK);

            assertThatThrownBy(latch::start)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("LATENT")
                    .hasMessageContaining("call client.start()");
            assertThatThrownBy(selector::start)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("call client.start()");
            latch.close();
            selector.close();
        }
        assertThat(client.checkExists().forPath("/never")).isNull();
    }

    @Test
    void startingTwiceOrAfterCloseIsRejected() throws Exception {
        FencedLeaderLatch latch = new FencedLeaderLatch(client, "/twice/latch", "id");
        latch.start();
        assertThatThrownBy(latch::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("start() may be called once");
        latch.close();
        assertThatThrownBy(latch::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CLOSED");

        FencedLeaderSelector selector = new FencedLeaderSelector(client, "/twice/selector", "id", NO_WORK);
        selector.close();
        assertThatThrownBy(selector::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CLOSED");
        assertThat(client.checkExists().forPath("/twice/selector")).isNull();
    }

    @Test
    void awaitTreatsANegativeTimeoutAsDoNotWaitAndRejectsAnUnstartedLatch() throws Exception {
        try (FencedLeaderLatch latch = new FencedLeaderLatch(client, "/await/latch", "id")) {
            assertThatThrownBy(() -> latch.await(1, TimeUnit.SECONDS))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("call start() before await()");
            latch.start();
            latch.await(-1, TimeUnit.SECONDS); // as CountDownLatch.await: returns at once, whatever it says
            assertThatThrownBy(() -> latch.await(1, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("unit must not be null");
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(latch.await(-1, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aCloseWaitOutsideItsBoundsIsRejected() {
        for (Duration wait : new Duration[] {Duration.ZERO, Duration.ofMillis(-1), Duration.ofHours(2)}) {
            assertThatThrownBy(() -> new FencedLeaderLatch(client, "/wait/latch", "id", wait))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("closeWait must be more than 0 and at most 1 hour");
            assertThatThrownBy(() -> new FencedLeaderSelector(client, "/wait/selector", "id", NO_WORK, wait))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("closeWait must be more than 0 and at most 1 hour");
        }
        assertThatThrownBy(() -> new FencedLeaderLatch(client, "/wait/latch", "id", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("closeWait must not be null");
    }

    @Test
    void aSecondSelectorWithTheSameIdOnTheSameClientAndPathIsRejectedAtStart() throws Exception {
        try (FencedLeaderSelector first = new FencedLeaderSelector(client, "/dup/selector", "same", NO_WORK);
                FencedLeaderSelector second = new FencedLeaderSelector(client, "/dup/selector", "same", NO_WORK);
                FencedLeaderSelector elsewhere = new FencedLeaderSelector(client, "/dup/other", "same", NO_WORK)) {
            first.start();
            assertThatThrownBy(second::start)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("another FencedLeaderSelector with this participant id");
            elsewhere.start();
        }
        try (FencedLeaderSelector again = new FencedLeaderSelector(client, "/dup/selector", "same", NO_WORK)) {
            again.start(); // the first one was closed: its id is free again
        }
    }
}
