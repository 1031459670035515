package dev.leasehold.scenarios.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.recipes.FencedLeaderLatch;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.scenarios.Zk;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.claims.BatchClaims;
import dev.leasehold.store.slots.SlotRuns;
import dev.leasehold.testkit.NotRoot;
import dev.leasehold.testkit.PatientPostgres;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.ZKPaths;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code inspect} and {@code rebase} against a real ZooKeeper, H2 and PostgreSQL 17: the printed facts. */
@Timeout(120)
class OpsCommandsTest {

    private static final String PATH = "/billing/leader";

    /** Runs the program in-process (the test package's Program is not visible here). */
    private record Run(int exitCode, String out, String err) {
        static Run of(String... args) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = dev.leasehold.scenarios.cli.Main.execute(
                    args,
                    new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        }

        String all() {
            return "exit " + exitCode + "\n--- out\n" + out + "\n--- err\n" + err;
        }
    }

    private static CuratorFramework client(TestingServer server) throws InterruptedException {
        CuratorFramework client =
                CuratorFrameworkFactory.newClient(server.getConnectString(), 10_000, 5_000, new RetryOneTime(100));
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    @Test
    void inspectZkShowsTheParticipantsInQueueOrderTheirTokensSessionsTheLeaderAndWhatEachFollowerWatches()
            throws Exception {
        List<AutoCloseable> open = new ArrayList<>();
        try (TestingServer server = new TestingServer()) {
            List<CuratorFramework> clients = new ArrayList<>();
            List<FencedLeaderLatch> latches = new ArrayList<>();
            CuratorFramework observer = client(server);
            open.add(observer);
            for (String id : List.of("billing-a", "billing-b", "billing-c")) {
                CuratorFramework client = client(server);
                FencedLeaderLatch latch = new FencedLeaderLatch(client, PATH, id);
                open.add(client);
                open.add(latch);
                latch.start();
                if (latches.isEmpty()) {
                    assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue(); // the first joins and leads
                }
                Zk.awaitChildren(observer, PATH, latches.size() + 1, 30_000); // then each queues behind it
                clients.add(client);
                latches.add(latch);
            }
            FencingToken token = latches.get(0).currentToken().orElseThrow();
            List<String> nodes = observer.getChildren().forPath(PATH).stream() // in queue order: by sequence number
                    .sorted(Comparator.comparing((String node) -> node.substring(node.length() - 10)))
                    .toList();

            Run run = Run.of("inspect", "--zk", server.getConnectString(), PATH);

            assertThat(run.exitCode()).as(run.all()).isZero();
            assertThat(run.out()).as(run.all()).contains("election " + PATH + ": 3 participants, leader billing-a");
            List<String> rows =
                    run.out().lines().filter(l -> l.matches("  \\d .*")).toList();
            assertThat(rows).as(run.all()).hasSize(3);
            assertThat(rows.get(0))
                    .contains("billing-a")
                    .contains(Long.toString(token.value()))
                    .contains("0x"
                            + Long.toHexString(clients.get(0)
                                    .getZookeeperClient()
                                    .getZooKeeper()
                                    .getSessionId()))
                    .endsWith("LEADER");
            assertThat(rows.get(1))
                    .contains("billing-b")
                    .contains("follower, watches " + nodes.get(0) + " (billing-a)");
            assertThat(rows.get(2))
                    .contains("billing-c")
                    .contains("follower, watches " + nodes.get(1) + " (billing-b)");
            assertThat(run.out()).contains("node " + ZKPaths.getNodeFromPath(token.path()));

            Run json = Run.of("inspect", "--zk", server.getConnectString(), PATH, "--json");
            assertThat(json.exitCode()).as(json.all()).isZero();
            assertThat(json.out())
                    .as(json.all())
                    .startsWith("{\"election\":\"" + PATH + "\",\"leader\":\"billing-a\"")
                    .contains("\"czxid\":" + token.value() + ",")
                    .contains("\"watches\":\"" + nodes.get(1) + "\"");
            assertThat(latches.get(0).hasLeadership()).isTrue(); // reading changed nothing

            Run missing = Run.of("inspect", "--zk", server.getConnectString(), "/no/such/election");
            assertThat(missing.exitCode()).as(missing.all()).isEqualTo(2);
            assertThat(missing.err().strip())
                    .isEqualTo("error: no election at /no/such/election: the path does not" + " exist");
            Run noPath = Run.of("inspect", "--zk", server.getConnectString());
            assertThat(noPath.exitCode()).as(noPath.all()).isEqualTo(2);
            assertThat(noPath.err().lines()).hasSize(1);
        } finally {
            for (int i = open.size() - 1; i >= 0; i--) {
                open.get(i).close();
            }
        }
    }

    @Test
    void inspectWithNeitherOrBothSourcesAndAnUnreachableZooKeeperAreOneLineAndExitCode2() {
        Run neither = Run.of("inspect");
        assertThat(neither.exitCode()).isEqualTo(2);
        assertThat(neither.err().strip())
                .isEqualTo("error: give --zk CONNECT PATH or --jdbc URL [RESOURCE] (see --help)");
        Run unreachable = Run.of("inspect", "--zk", "127.0.0.1:1", PATH);
        assertThat(unreachable.exitCode()).as(unreachable.all()).isEqualTo(2);
        assertThat(unreachable.err().strip()).isEqualTo("error: cannot reach ZooKeeper at 127.0.0.1:1 within 5 s");
    }

    /** --jdbc comes from the shared database mixin, optional elsewhere: rebase still refuses to run without it. */
    @Test
    void rebaseWithoutJdbcIsOneLineAndExitCode2() {
        Run noJdbc = Run.of("rebase", "--resource", "ledger", "--token", "12", "--operator", "alice", "--reason", "r");
        assertThat(noJdbc.exitCode()).as(noJdbc.all()).isEqualTo(2);
        assertThat(noJdbc.err().strip()).isEqualTo("error: Missing required option: '--jdbc=URL' (see --help)");
        Run help = Run.of("rebase", "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("--jdbc=URL", "--user", "--password");
    }

    /**
     * Issue 42: a resource written before names were checked at the door (or by hand) printed raw, so a line break
     * forged a line of the output and an escape sequence reached the operator's terminal.
     */
    @Test
    void inspectEscapesControlCharactersInWhatItReads() throws Exception {
        String url = "jdbc:h2:mem:ops-inspect-escapes;DB_CLOSE_DELAY=-1";
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL(url);
        FencedSchema.install(ds);
        try (java.sql.Connection c = ds.getConnection();
                java.sql.PreparedStatement p = c.prepareStatement(
                        "INSERT INTO leasehold_fence (resource, token, updated_at) VALUES (?, 7, CURRENT_TIMESTAMP)")) {
            p.setString(1, "ledger\nfence ledger: mark 999999\u001b]0;owned\u0007");
            p.executeUpdate();
        }
        Run run = Run.of("inspect", "--jdbc", url);
        assertThat(run.exitCode()).as(run.all()).isZero();
        assertThat(run.out())
                .as(run.all())
                .doesNotContain("\u001b", "\u0007")
                .contains("ledger\\nfence ledger: mark 999999\\u001b]0;owned\\u0007");
        assertThat(run.out().lines()).noneMatch(line -> line.startsWith("fence ledger"));
        Run json = Run.of("inspect", "--jdbc", url, "--json");
        assertThat(json.out()).as(json.all()).doesNotContain("\u001b");
    }

    @Test
    void inspectAndRebaseOnH2() {
        String url = "jdbc:h2:mem:ops-inspect;DB_CLOSE_DELAY=-1";
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL(url);
        inspectAndRebase(ds, url, new String[0]);
    }

    @Test
    void inspectAndRebaseOnPostgres() throws Exception {
        NotRoot.require();
        try (EmbeddedPostgres postgres = PatientPostgres.builder().start()) {
            inspectAndRebase(postgres.getPostgresDatabase(), postgres.getJdbcUrl("postgres", "postgres"), new String[] {
                "--user", "postgres"
            });
        }
    }

    private static String[] args(String[] credentials, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of(credentials));
        return all.toArray(String[]::new);
    }

    private static void inspectAndRebase(DataSource ds, String url, String[] credentials) {
        FencedSchema.install(ds);
        FenceGate gate = new FenceGate(ds);
        gate.advance("ledger", 5, "billing-a");
        gate.advance("ledger", 9, "billing-b");
        gate.advance("payouts", 9, "billing-b");
        BatchClaims batches = new BatchClaims(ds);
        for (String id : List.of("b1", "b2", "b3")) {
            batches.enqueue(id, "payload");
        }
        assertThat(batches.claimNext("worker", Duration.ofMinutes(5))).isPresent();
        SlotRuns slots = new SlotRuns(ds);
        assertThat(slots.tryClaim("report", Instant.parse("2026-11-30T10:00:00Z"), "r1", Duration.ofMillis(1)))
                .isPresent();
        assertThat(slots.tryClaim("report", Instant.parse("2026-11-30T10:01:00Z"), "r2", Duration.ofHours(1)))
                .isPresent();
        while (expiredSlots(ds) == 0) {
            // the 1 ms lease ends on the database's clock: read it until it has
        }

        Run all = Run.of(args(credentials, "inspect", "--jdbc", url));
        assertThat(all.exitCode()).as(all.all()).isZero();
        assertThat(all.out())
                .as(all.all())
                .contains("fence marks: 2")
                .containsPattern("ledger\\s+9\\s+last write ")
                .containsPattern("payouts\\s+9\\s+last write ")
                .contains("batches: pending 2, processing 1, expired 0, done 0, failed 0; oldest pending ")
                .contains("slot runs in progress: 1, expired: 1")
                .containsPattern("report\\s+2026-11-30T10:00:00Z\\s+r1\\s+fence 1 .*EXPIRED");

        Run declined = runWithInput(
                "no\n",
                args(
                        credentials,
                        "rebase",
                        "--jdbc",
                        url,
                        "--resource",
                        "ledger",
                        "--token",
                        "3",
                        "--operator",
                        "alice",
                        "--reason",
                        "ZooKeeper rebuilt"));
        assertThat(declined.exitCode()).as(declined.all()).isEqualTo(1);
        assertThat(declined.out())
                .contains("Re-base the fence of 'ledger' from 9 to 3?")
                .contains("not re-based: the mark of 'ledger' is still 9");
        assertThat(gate.highestToken("ledger")).hasValue(9);

        Run rebased = Run.of(args(
                credentials,
                "rebase",
                "--jdbc",
                url,
                "--resource",
                "ledger",
                "--token",
                "3",
                "--operator",
                "alice",
                "--reason",
                "ZooKeeper rebuilt",
                "--yes"));
        assertThat(rebased.exitCode()).as(rebased.all()).isZero();
        assertThat(rebased.out().strip())
                .isEqualTo("fence of 'ledger' re-based from 9 to 3 by alice: ZooKeeper" + " rebuilt");
        assertThat(gate.highestToken("ledger")).hasValue(3);

        gate.write("ledger", 3, connection -> {}); // a write after the re-base: the mark stays, the last write moves
        Run one = Run.of(args(credentials, "inspect", "--jdbc", url, "ledger"));
        assertThat(one.exitCode()).as(one.all()).isZero();
        List<String> history =
                one.out().lines().filter(l -> l.matches("  \\d{4}-.*")).toList();
        assertThat(history).as(one.all()).hasSize(3);
        String rebasedAt = history.get(0).strip().split("\\s+")[0];
        assertThat(one.out())
                .as("when the mark was set (the history) and the last write, apart: " + one.all())
                .containsPattern("fence ledger: mark 3, rebased " + java.util.regex.Pattern.quote(rebasedAt)
                        + ", last write \\S+\\n");
        Instant lastWrite =
                Instant.parse(one.out().lines().findFirst().orElseThrow().replaceAll(".*last write ", ""));
        assertThat(lastWrite).as(one.all()).isAfterOrEqualTo(Instant.parse(rebasedAt));
        assertThat(history.get(0)).containsPattern("rebased\\s+3\\s+after 9\\s+by alice: ZooKeeper rebuilt");
        assertThat(history.get(1)).containsPattern("raised\\s+9\\s+after 5\\s+by billing-b");
        assertThat(history.get(2)).containsPattern("raised\\s+5\\s+after none\\s+by billing-a");

        Run json = Run.of(args(credentials, "inspect", "--jdbc", url, "ledger", "--json"));
        assertThat(json.out())
                .as(json.all())
                .startsWith("{\"resource\":\"ledger\",\"mark\":3,\"history\":[")
                .contains("\"kind\":\"rebased\",\"token\":3,\"previous\":9,\"holder\":\"alice\"")
                .contains("\"batches\":{\"pending\":2,\"processing\":1,");

        Run unreachable = Run.of("inspect", "--jdbc", "jdbc:postgresql://127.0.0.1:1/none");
        assertThat(unreachable.exitCode()).as(unreachable.all()).isEqualTo(2);
        assertThat(unreachable.err().lines()).as(unreachable.all()).hasSize(1);
        assertThat(unreachable.err()).startsWith("error: cannot reach the database at jdbc:postgresql://127.0.0.1:1");
    }

    private static int expiredSlots(DataSource ds) {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT COUNT(*) FROM leasehold_slot_runs" + " WHERE lease_until < CURRENT_TIMESTAMP")) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Issue 42: rebase read the mark, asked, and then re-based without looking again: a new leader's advance between
     * the prompt and the answer was lowered without a new prompt. The re-base is now a compare-and-set against what
     * was shown, and the audit row records the operating system and database users.
     */
    @Test
    void rebaseNeverLowersAMarkThatMovedWhileTheOperatorWasAsked() throws Exception {
        String url = "jdbc:h2:mem:ops-rebase-cas;DB_CLOSE_DELAY=-1";
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL(url);
        FencedSchema.install(ds);
        FenceGate gate = new FenceGate(ds);
        gate.advance("ledger", 500);
        InputStream stdin = System.in;
        System.setIn(
                new InputStream() { // the operator answers "yes" while a new leader advances
                    private final byte[] yes = "yes\n".getBytes(StandardCharsets.UTF_8);
                    private int at;

                    @Override
                    public int read() {
                        if (at == 0) {
                            gate.advance("ledger", 900);
                        }
                        return at < yes.length ? yes[at++] : -1;
                    }
                });
        Run moved;
        try {
            moved = Run.of(
                    "rebase",
                    "--jdbc",
                    url,
                    "--resource",
                    "ledger",
                    "--token",
                    "12",
                    "--operator",
                    "alice",
                    "--reason",
                    "ensemble rebuilt");
        } finally {
            System.setIn(stdin);
        }
        assertThat(moved.exitCode()).as(moved.all()).isEqualTo(1);
        assertThat(moved.out()).as(moved.all()).contains("not re-based", "its mark is 900, not the 500");
        assertThat(gate.highestToken("ledger"))
                .as("the new leader's mark stands")
                .hasValue(900);

        Run again = runWithInput(
                "yes\n",
                "rebase",
                "--jdbc",
                url,
                "--resource",
                "ledger",
                "--token",
                "12",
                "--operator",
                "alice",
                "--reason",
                "ensemble rebuilt");
        assertThat(again.exitCode()).as(again.all()).isZero();
        assertThat(gate.highestToken("ledger")).hasValue(12);
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT operator, os_user, db_user FROM leasehold_fence_rebase")) {
            assertThat(rs.next())
                    .as("one audit row: the refused re-base wrote none")
                    .isTrue();
            assertThat(rs.getString(1)).isEqualTo("alice");
            assertThat(rs.getString(2)).isEqualTo(System.getProperty("user.name"));
            assertThat(rs.getString(3))
                    .as("the database user, from the server (H2: this data source has none)")
                    .isNotNull();
            assertThat(rs.next()).isFalse();
        }
    }

    private static Run runWithInput(String input, String... args) {
        InputStream stdin = System.in;
        System.setIn(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)));
        try {
            return Run.of(args);
        } finally {
            System.setIn(stdin);
        }
    }
}
