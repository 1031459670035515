package dev.leasehold.scenarios.incidents.billing;

import dev.leasehold.scenarios.RunResult;
import dev.leasehold.scenarios.Scenario;
import dev.leasehold.scenarios.cli.Env;
import dev.leasehold.scenarios.report.Timeline;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StaleTokenException;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.outbox.IdempotencyKey;
import dev.leasehold.store.outbox.Outbox;
import dev.leasehold.store.outbox.OutboxIntent;
import dev.leasehold.store.outbox.RecordOutcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * Incident 2's other half: the billing run charges customers through a payment provider, a system that knows nothing
 * of tokens. The provider is a real HTTP API on loopback ({@link PaymentApi}) that honours {@code Idempotency-Key}.
 * Three schedulers elect a leader; the leader A pauses mid-run, B takes over, A wakes ({@link BillingElection}).
 *
 * <ul>
 *   <li><b>as it happened</b>: each leader calls the API with no key, then records the charge through
 *       {@link FenceGate}. A's call goes out before any database can refuse it: the gate rejects A's record, but the
 *       provider has charged the customer a second time.</li>
 *   <li><b>with Leasehold</b>: leaders record intents in the {@link Outbox} through the gate, keyed by customer and
 *       cycle; two relays deliver them with their keys. A's intent is refused; a relay that stalls between the
 *       provider's answer and its record loses its claim, the other relay sends the same key again, and the provider
 *       answers from the key: every customer is charged exactly once.</li>
 *   <li><b>provider ignores keys</b>: the same, with a provider that charges on every request: the stalled relay's
 *       intent is charged twice. Delivery is at-least-once; the window (a relay's send to its recorded outcome) is
 *       named and measured.</li>
 * </ul>
 *
 * <p>Why one file of more than 300 lines: one story in three runs told in order, as the timeline shows it.
 */
public final class BillingExternalScenario implements Scenario {

    static final String NAME = "billing-external";
    private static final List<String> CUSTOMERS = List.of("c1", "c2", "c3", "c4", "c5", "c6");
    private static final String CYCLE = "2026-11";
    private static final String RESOURCE = "billing-" + CYCLE;
    private static final String STALLED = "c2";
    private static final int CHARGED_BEFORE_PAUSE = 3;
    private static final long CHARGE_MS = 40;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String summary() {
        return "incident 2 at the payment provider (HTTP): a double charge without keys; a fenced outbox and relays"
                + " with idempotency keys; a provider that ignores keys";
    }

    @Override
    public List<RunResult> run(Env env) throws Exception {
        return List.of(asItHappened(env), withOutbox(env, true), withOutbox(env, false));
    }

    private static IdempotencyKey key(String customer) {
        return IdempotencyKey.of("billing", customer, CYCLE);
    }

    private static Map<String, Integer> counts(PaymentApi api) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        CUSTOMERS.forEach(customer -> counts.put(customer, 0));
        counts.putAll(api.chargesByCustomer());
        return counts;
    }

    private static String customersWith(Map<String, Integer> counts, int times) {
        String list = counts.entrySet().stream()
                .filter(e -> e.getValue() == times)
                .map(Map.Entry::getKey)
                .collect(Collectors.joining(", "));
        return list.isEmpty() ? "none" : list;
    }

    private static String listOrNone(List<String> items) {
        return items.isEmpty() ? "none" : String.join(", ", items);
    }

    private static RunResult result(
            Env env,
            String title,
            boolean broken,
            Timeline timeline,
            List<String> verdicts,
            boolean asExpected,
            String expectation) {
        env.printVerdicts(verdicts);
        return new RunResult(NAME, title, broken, timeline, verdicts, asExpected, expectation);
    }

    // ---- as it happened ---------------------------------------------------------------------------------------

    private RunResult asItHappened(Env env) throws Exception {
        env.out()
                .println("-- as it happened: the leader charges through the payment API with no key, then records"
                        + " the charge through FenceGate");
        Timeline timeline = new Timeline(NAME + ": as it happened", env.out(), List.of("A", "B", "C", PaymentApi.LANE));
        DataSource ds = env.dataSource(NAME + "-as-it-happened");
        String prefix = env.tablePrefix();
        StoreConfig config = StoreConfig.defaults().withTablePrefix(prefix);
        FencedSchema.install(ds, config);
        String table = prefix + "charged";
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (customer VARCHAR(20) NOT NULL PRIMARY KEY, token BIGINT NOT NULL)");
        }
        FenceGate gate = new FenceGate(ds, config);
        List<String> undone = Collections.synchronizedList(new ArrayList<>());
        try (PaymentApi api = PaymentApi.start(true, timeline)) {
            PaymentClient client = new PaymentClient(api.uri());
            BillingElection.Work work = leader -> {
                leader.fenceFirst(gate, RESOURCE);
                Set<String> done = charged(ds, table);
                if (!done.isEmpty()) {
                    timeline.info(leader.name, "resumes the run: already charged " + String.join(", ", done));
                }
                leader.forEachCustomer(
                        CUSTOMERS,
                        done,
                        CHARGED_BEFORE_PAUSE,
                        customer -> "charges " + customer + " through the API",
                        CHARGE_MS, // the story's time to prepare one charge
                        customer -> {
                            client.charge(PaymentClient.body(customer, CYCLE), null);
                            timeline.info(leader.name, "charged " + customer + " through the API (no key)", customer);
                            try {
                                gate.write(
                                        RESOURCE, leader.token, tx -> insertCharged(tx, table, customer, leader.token));
                                timeline.accepted(
                                        leader.name, "recorded " + customer + " as charged", leader.token, customer);
                                return true;
                            } catch (StaleTokenException e) {
                                undone.add(leader.name + "'s " + customer + " with token " + e.offeredToken()
                                        + " (highest " + e.highestToken() + ")");
                                timeline.rejected(
                                        leader.name,
                                        "its record of " + customer + " REJECTED: stale token "
                                                + e.offeredToken() + " < " + e.highestToken()
                                                + "; the provider already charged "
                                                + customer,
                                        leader.token,
                                        customer);
                                return false;
                            }
                        });
            };
            try (BillingElection election = new BillingElection(env, timeline, path(prefix), work)) {
                election.run();
            }
            timeline.finish();
            Map<String, Integer> counts = counts(api);
            List<String> verdicts = List.of(
                    "customers charged twice at the provider: " + customersWith(counts, 2),
                    "provider charges the gate could not undo: " + listOrNone(undone));
            return result(
                    env,
                    "as it happened",
                    true,
                    timeline,
                    verdicts,
                    counts.values().stream().anyMatch(n -> n == 2) && !undone.isEmpty(),
                    "a customer charged twice at the provider although the gate rejected the stale record");
        } finally {
            env.dropTables(ds, prefix);
        }
    }

    private static Set<String> charged(DataSource ds, String table) throws SQLException {
        Set<String> customers = new TreeSet<>();
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT customer FROM " + table)) {
            while (rs.next()) {
                customers.add(rs.getString(1));
            }
        }
        return customers;
    }

    private static void insertCharged(Connection tx, String table, String customer, long token) throws SQLException {
        try (PreparedStatement p = tx.prepareStatement("INSERT INTO " + table + " (customer, token) VALUES (?, ?)")) {
            p.setString(1, customer);
            p.setLong(2, token);
            p.executeUpdate();
        }
    }

    private static String path(String prefix) {
        return "/leasehold-scenarios/" + prefix + "billing-external";
    }

    // ---- with the outbox --------------------------------------------------------------------------------------

    private RunResult withOutbox(Env env, boolean keysHonoured) throws Exception {
        String title = keysHonoured ? "with Leasehold" : "provider ignores keys";
        env.out()
                .println("-- " + title + ": leaders record intents in the outbox through the gate, keyed by customer"
                        + " and cycle; two relays deliver them with Idempotency-Key"
                        + (keysHonoured ? "" : "; the provider IGNORES the key"));
        Timeline timeline = new Timeline(
                NAME + ": " + title, env.out(), List.of("A", "B", "C", "relay-1", "relay-2", PaymentApi.LANE));
        DataSource ds = env.dataSource(NAME + "-" + (keysHonoured ? "keys" : "no-keys"));
        String prefix = env.tablePrefix();
        StoreConfig config = StoreConfig.defaults().withTablePrefix(prefix);
        FencedSchema.install(ds, config);
        FenceGate gate = new FenceGate(ds, config);
        Outbox outbox = new Outbox(ds, config);
        List<String> refused = Collections.synchronizedList(new ArrayList<>());
        try (PaymentApi api = PaymentApi.start(keysHonoured, timeline);
                RelayPair relays = new RelayPair(
                        ds, config, new PaymentClient(api.uri()), timeline, key(STALLED), CUSTOMERS.size())) {
            BillingElection.Work work = leader -> {
                leader.fenceFirst(gate, RESOURCE);
                leader.forEachCustomer(
                        CUSTOMERS,
                        Set.of(),
                        CHARGED_BEFORE_PAUSE,
                        customer -> "records the intent to charge " + customer,
                        CHARGE_MS, // the story's time to prepare one charge
                        customer -> {
                            OutboxIntent intent =
                                    OutboxIntent.of(key(customer), "payments", PaymentClient.body(customer, CYCLE));
                            try {
                                if (outbox.record(RESOURCE, leader.token, intent) == RecordOutcome.RECORDED) {
                                    timeline.accepted(
                                            leader.name,
                                            "recorded the intent to charge " + customer + " (key " + intent.key() + ")",
                                            leader.token,
                                            customer);
                                } else {
                                    timeline.info(
                                            leader.name,
                                            customer + ": key " + intent.key() + " already recorded, nothing to do");
                                }
                                return true;
                            } catch (StaleTokenException e) {
                                refused.add(leader.name + "'s intent for " + customer + " with token "
                                        + e.offeredToken() + " (highest " + e.highestToken() + ")");
                                timeline.rejected(
                                        leader.name,
                                        "intent for " + customer + " REFUSED: stale token " + e.offeredToken() + " < "
                                                + e.highestToken() + "; nothing recorded, nothing sent",
                                        leader.token,
                                        customer);
                                return false;
                            }
                        });
            };
            relays.start();
            try (BillingElection election = new BillingElection(env, timeline, path(prefix), work)) {
                election.run();
            }
            relays.awaitDone();
            timeline.finish();
            Map<String, Integer> counts = counts(api);
            List<String> verdicts = new ArrayList<>();
            boolean asExpected;
            if (keysHonoured) {
                verdicts.add("customers charged exactly once at the provider: " + customersWith(counts, 1));
                verdicts.add("stale intents refused: " + listOrNone(refused));
                verdicts.add("answered from the key, no second charge: " + listOrNone(api.replayed()));
                verdicts.add("late records refused: " + listOrNone(relays.lateRecords()));
                asExpected = counts.values().stream().allMatch(n -> n == 1)
                        && !refused.isEmpty()
                        && api.replayed().contains(STALLED)
                        && !relays.lateRecords().isEmpty();
            } else {
                verdicts.add("customers charged twice at the provider: " + customersWith(counts, 2));
                verdicts.add("stale intents refused: " + listOrNone(refused));
                verdicts.add("the window: between a relay's send and its recorded outcome; " + relays.staller()
                        + " stalled there " + relays.stallMillis() + " ms, until its " + RelayPair.LEASE_MS
                        + " ms lease (counted from its claim) had expired and the other relay had sent " + STALLED
                        + " again");
                verdicts.add("the window without a stall: " + describe(relays.windows()));
                asExpected = counts.get(STALLED) == 2
                        && customersWith(counts, 1).split(", ").length == 5
                        && !refused.isEmpty();
            }
            return result(
                    env,
                    title,
                    !keysHonoured,
                    timeline,
                    verdicts,
                    asExpected,
                    keysHonoured
                            ? "every customer charged exactly once at the provider, A's intent refused, the relay's second"
                                    + " send answered from its key"
                            : "exactly " + STALLED + " charged twice (the relay window), every other customer once");
        } finally {
            env.dropTables(ds, prefix);
        }
    }

    private static String describe(List<Long> windows) {
        if (windows.isEmpty()) {
            return "no deliveries measured";
        }
        List<Long> sorted = windows.stream().sorted().toList();
        return "median " + sorted.get(sorted.size() / 2) + " ms, max " + sorted.get(sorted.size() - 1) + " ms over "
                + sorted.size() + " deliveries";
    }
}
