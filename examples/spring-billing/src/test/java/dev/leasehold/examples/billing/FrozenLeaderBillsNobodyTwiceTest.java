package dev.leasehold.examples.billing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.leasehold.examples.billing.Instances.Line;
import dev.leasehold.testkit.ChildJvm;
import dev.leasehold.testkit.LockedPostgres;
import dev.leasehold.testkit.NotRoot;
import dev.leasehold.testkit.PatientPostgres;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Incident 2 of the seeds, replayed on the example as a team runs it: two instances of {@link BillingApplication} in
 * child JVMs, one embedded PostgreSQL 17, one ZooKeeper (a TestingServer), on each election backend.
 *
 * <ol>
 *   <li>Both start; one leads and starts the billing run (its list: every customer), one invoice per
 *       {@code billing.pace}.</li>
 *   <li>After its second invoice, between two customers, the leader is frozen ({@code kill -STOP}) past its ZooKeeper
 *       session or its lease.</li>
 *   <li>The other instance takes over, with a higher token, and bills the customers left.</li>
 *   <li>The old leader is thawed ({@code kill -CONT}) and goes on with its old list: its next invoice must be refused
 *       ({@code NotLeaderException} if it saw its loss first, else {@code StaleTokenException} from the fence).</li>
 * </ol>
 *
 * Then: every customer billed exactly once, no invoice with a lower token after one with a higher token, and the
 * refusal in the old leader's log. With {@code -Dexample.unfenced=true} the instances run without the fence
 * ({@code LeaseholdFenceAutoConfiguration} excluded, so {@code @Fenced} does nothing): the old leader bills the
 * customers the new one billed, and this test fails (the check that it can).
 */
class FrozenLeaderBillsNobodyTwiceTest {

    private static final int CUSTOMERS = 6;
    private static final String PERIOD = "2026-11";
    private static final Duration START = Duration.ofSeconds(120); // two Spring Boot JVMs on a loaded machine
    private static final Duration STEP = Duration.ofSeconds(45);
    private static final boolean UNFENCED = Boolean.getBoolean("example.unfenced");

    private static EmbeddedPostgres postgres;
    private static String password;
    private static TestingServer zookeeper;

    /** The election backends, and how each is configured. */
    enum Backend {
        ZOOKEEPER,
        JDBC;

        List<String> arguments() {
            return this == ZOOKEEPER
                    ? List.of(
                            "--leasehold.zookeeper.connect-string=" + zookeeper.getConnectString(),
                            "--leasehold.zookeeper.session-timeout=4s")
                    : List.of(
                            "--leasehold.election.backend=jdbc",
                            "--leasehold.election.lease.lease-duration=4s",
                            "--leasehold.election.lease.renew-deadline=3s",
                            "--leasehold.election.lease.retry-period=1s");
        }
    }

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(ChildJvm.signalsSupported(), "kill -STOP / -CONT are needed");
        NotRoot.require("run the build as an unprivileged user");
        password = LockedPostgres.newPassword();
        postgres = LockedPostgres.start(PatientPostgres.builder(), password);
        zookeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 200, -1), true); // 400 ms..4 s
    }

    @AfterAll
    static void stop() throws IOException {
        if (zookeeper != null) {
            zookeeper.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aLeaderFrozenMidRunIsRefusedWhenItWakes(Backend backend) throws Exception {
        String database = "billing_" + backend.name().toLowerCase(Locale.ROOT);
        DataSource billing = createBillingDatabase(database);
        try (Instances instances = new Instances()) {
            for (String who : List.of("a", "b")) {
                instances.start(who, arguments(who, database, backend));
            }
            String old = instances
                    .await(l -> l.text().contains("leading billing with token"), 1, START, "leader")
                    .who();
            String next = old.equals("a") ? "b" : "a";
            instances.await(l -> l.who().equals(old) && l.text().contains(" billed customer-"), 2, STEP, "invoice");
            instances.signal("-STOP", old); // between two customers: the run's list is in its memory

            instances.await(
                    l -> l.who().equals(next) && l.text().contains("billing run for " + PERIOD + " done"),
                    1,
                    STEP,
                    "the new leader's run");
            instances.signal("-CONT", old);
            Line end = instances.await(
                    l -> l.who().equals(old) && l.text().contains("billing run for " + PERIOD),
                    2,
                    STEP,
                    "the end of the old leader's run"); // the 1st such line is its run's start

            String transcript = instances.transcript();
            assertThat(twiceBilled(billing))
                    .as("customers billed twice\n%s", transcript)
                    .isEmpty();
            assertThat(billedCustomers(billing)).as("customers billed").isEqualTo(CUSTOMERS);
            assertThat(staleInvoices(billing))
                    .as("invoices written after a higher token's\n%s", transcript)
                    .isEmpty();
            assertThat(end.text())
                    .as("the old leader's run ended refused\n%s", transcript)
                    .contains("stopped after 2 billed")
                    .containsAnyOf("StaleTokenException", "NotLeaderException");
        }
    }

    private static List<String> arguments(String who, String database, Backend backend) throws IOException {
        List<String> arguments = new ArrayList<>(List.of(
                "--spring.datasource.url=" + postgres.getJdbcUrl(LockedPostgres.USER, database),
                "--spring.datasource.username=" + LockedPostgres.USER,
                ChildJvm.secretArgument(password),
                "--spring.datasource.hikari.maximum-pool-size=3",
                "--leasehold.election.participant-id=" + who,
                "--billing.period=" + PERIOD,
                "--billing.interval=200ms",
                "--billing.pace=400ms"));
        arguments.addAll(backend.arguments());
        if (UNFENCED) {
            arguments.add("--spring.autoconfigure.exclude=dev.leasehold.spring.fence.LeaseholdFenceAutoConfiguration");
        }
        return arguments;
    }

    /**
     * A database of its own per backend, with the example's schema and {@link #CUSTOMERS} customers. Its idle bound is
     * the one docs/your-transaction.md asks for: a leader frozen inside a transaction holds the new one back 3 s at most.
     */
    private static DataSource createBillingDatabase(String database) throws SQLException, IOException {
        try (Connection c = postgres.getPostgresDatabase().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + database);
            s.execute("ALTER DATABASE " + database + " SET idle_in_transaction_session_timeout = '3s'");
        }
        DataSource billing = postgres.getDatabase(LockedPostgres.USER, database);
        String schema;
        try (InputStream in = FrozenLeaderBillsNobodyTwiceTest.class.getResourceAsStream("/schema.sql")) {
            schema = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try (Connection c = billing.getConnection();
                Statement s = c.createStatement()) {
            s.execute(schema);
            for (int i = 1; i <= CUSTOMERS; i++) {
                s.execute(
                        String.format(Locale.ROOT, "INSERT INTO customer VALUES ('customer-%02d', %d.00)", i, 10 * i));
            }
        }
        return billing;
    }

    private static List<String> twiceBilled(DataSource billing) throws SQLException {
        return strings(
                billing,
                "SELECT customer || ' x' || count(*) FROM invoice WHERE period = ? GROUP BY customer HAVING count(*) > 1");
    }

    private static int billedCustomers(DataSource billing) throws SQLException {
        return strings(billing, "SELECT DISTINCT customer FROM invoice WHERE period = ?")
                .size();
    }

    /** Invoices inserted after one with a higher token: what a stale leader's write looks like. */
    private static List<String> staleInvoices(DataSource billing) throws SQLException {
        return strings(
                billing,
                "SELECT i.customer || ' with token ' || i.token FROM invoice i WHERE i.period = ? AND EXISTS"
                        + " (SELECT 1 FROM invoice j WHERE j.period = i.period AND j.id < i.id AND j.token > i.token)");
    }

    private static List<String> strings(DataSource billing, String sql) throws SQLException {
        try (Connection c = billing.getConnection();
                PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, PERIOD);
            List<String> found = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    found.add(rs.getString(1));
                }
            }
            return found;
        }
    }
}
