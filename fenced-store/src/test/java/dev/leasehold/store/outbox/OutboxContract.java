package dev.leasehold.store.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StaleTokenException;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.StoreException;
import dev.leasehold.store.testing.CountingDataSource;
import dev.leasehold.store.testing.RefusingDataSource;
import dev.leasehold.store.testing.TestThreads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The outbox's and the relay's contract, run against every database (see the subclasses). Threads are real; their
 * order is set with latches. A sleep appears only where it stands for a relay's stall longer than its lease.
 */
@Timeout(120)
abstract class OutboxContract {

    private static final String RESOURCE = "billing-2026-11";
    private static final String WORK = "test_outbox_work";

    protected abstract DataSource dataSource();

    private DataSource ds;
    private FenceGate gate;
    private Outbox outbox;

    @RegisterExtension
    final TestThreads threads = new TestThreads();

    @BeforeEach
    void cleanSchema() throws SQLException {
        ds = dataSource();
        FencedSchema.install(ds);
        FencedSchema.install(ds); // idempotent
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + WORK + " (customer VARCHAR(20) NOT NULL PRIMARY KEY)");
            for (String table : List.of(WORK, "leasehold_outbox", "leasehold_fence")) {
                s.execute("DELETE FROM " + table);
            }
        }
        gate = new FenceGate(ds);
        outbox = new Outbox(ds);
    }

    private ExecutorService threads(int n) {
        return threads.fixed(n);
    }

    private static IdempotencyKey key(String customer) {
        return IdempotencyKey.of("billing", customer, "2026-11");
    }

    private static OutboxIntent charge(String customer) {
        return OutboxIntent.of(key(customer), "payments", "{\"customer\":\"" + customer + "\",\"amount\":100}");
    }

    private OutboxRelay relay(String id, RelayConfig config) {
        return new OutboxRelay(ds, id, StoreConfig.defaults(), config);
    }

    private static final RelayConfig QUICK = RelayConfig.defaults().withBackoff(Duration.ZERO, Duration.ZERO);

    private List<String> work() throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT customer FROM " + WORK + " ORDER BY customer")) {
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
        }
        return rows;
    }

    private static void markInvoiced(Connection tx, String customer) throws SQLException {
        try (PreparedStatement p = tx.prepareStatement("INSERT INTO " + WORK + " (customer) VALUES (?)")) {
            p.setString(1, customer);
            p.executeUpdate();
        }
    }

    // ---- recording ------------------------------------------------------------------------------------------

    /**
     * Issue 21, defect 7: two keys that differ only by a trailing blank are two intents. On MariaDB with
     * {@code utf8mb4_bin} (PAD SPACE) the second was taken for the first (a conflicting payload, refused).
     */
    @Test
    void keysThatDifferOnlyByATrailingBlankStayTwoIntents() {
        gate.advance(RESOURCE, 33);
        IdempotencyKey plain = IdempotencyKey.of("billing", "c1", "2026-11");
        IdempotencyKey blank = IdempotencyKey.of("billing", "c1", "2026-11 ");
        assertThat(outbox.record(RESOURCE, 33, OutboxIntent.of(plain, "payments", "{\"n\":1}")))
                .isEqualTo(RecordOutcome.RECORDED);
        assertThat(outbox.record(RESOURCE, 33, OutboxIntent.of(blank, "payments", "{\"n\":2}")))
                .isEqualTo(RecordOutcome.RECORDED);
        assertThat(outbox.state(plain)).get().satisfies(s -> assertThat(s.payload())
                .isEqualTo("{\"n\":1}"));
        assertThat(outbox.state(blank)).get().satisfies(s -> assertThat(s.payload())
                .isEqualTo("{\"n\":2}"));
        assertThat(outbox.stats()).isEqualTo(new OutboxStats(2, 0, 0, 0));
    }

    @Test
    void aKeyIsRecordedOnceAndEveryLaterIntentWithItIsANoOpThatSaysSo() {
        gate.advance(RESOURCE, 33);
        assertThat(outbox.record(RESOURCE, 33, charge("c1"))).isEqualTo(RecordOutcome.RECORDED);
        assertThat(outbox.record(RESOURCE, 33, charge("c1"))).isEqualTo(RecordOutcome.ALREADY_RECORDED);
        gate.advance(RESOURCE, 34);
        assertThat(outbox.record(RESOURCE, 34, charge("c1")))
                .as("a new leader retrying the same work")
                .isEqualTo(RecordOutcome.ALREADY_RECORDED);

        OutboxIntent other = OutboxIntent.of(key("c1"), "payments", "{\"customer\":\"c1\",\"amount\":999}");
        assertThatThrownBy(() -> outbox.record(RESOURCE, 34, other))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'billing:c1:2026-11' was already recorded for another destination or payload");

        assertThat(outbox.state(key("c1"))).get().satisfies(s -> {
            assertThat(s.status()).isEqualTo("pending");
            assertThat(s.token()).as("recorded by the first leader").isEqualTo(33);
            assertThat(s.resource()).isEqualTo(RESOURCE);
            assertThat(s.payload()).contains("\"amount\":100");
            assertThat(s.attempts()).isZero();
            assertThat(s.fence()).isZero();
        });
        assertThat(outbox.stats()).isEqualTo(new OutboxStats(1, 0, 0, 0));
    }

    /** Eight leaders with rising tokens race to record the same fifty keys: one intent per key, nothing else. */
    @Test
    void racingLeadersRecordExactlyOneIntentPerKey() throws Exception {
        int leaders = 8;
        int keys = 50;
        ExecutorService pool = threads(leaders);
        CountDownLatch start = new CountDownLatch(1);
        Map<String, AtomicInteger> recorded = new ConcurrentHashMap<>();
        AtomicInteger stale = new AtomicInteger();
        List<Future<?>> futures = new ArrayList<>();
        for (int l = 1; l <= leaders; l++) {
            long token = l;
            futures.add(pool.submit(() -> {
                List<String> customers = new ArrayList<>();
                for (int k = 0; k < keys; k++) {
                    customers.add("c" + k);
                }
                Collections.shuffle(customers, new java.util.Random(token));
                await(start);
                for (String customer : customers) {
                    try {
                        if (outbox.record(RESOURCE, token, charge(customer)) == RecordOutcome.RECORDED) {
                            recorded.computeIfAbsent(customer, c -> new AtomicInteger())
                                    .incrementAndGet();
                        }
                    } catch (StaleTokenException e) {
                        stale.incrementAndGet();
                        return null; // a stale leader stops
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> future : futures) {
            future.get(60, TimeUnit.SECONDS);
        }
        assertThat(recorded).hasSize(keys);
        assertThat(recorded.values())
                .allSatisfy(n -> assertThat(n.get()).as("RECORDED per key").isEqualTo(1));
        assertThat(outbox.stats().pending()).isEqualTo(keys);
    }

    @Test
    void aStaleLeadersIntentIsRefusedAndNothingOfItIsRecorded() throws SQLException {
        gate.advance(RESOURCE, 5);
        assertThat(outbox.record(RESOURCE, 5, charge("c1"))).isEqualTo(RecordOutcome.RECORDED);
        gate.advance(RESOURCE, 6); // B fences first

        assertThatThrownBy(() -> outbox.record(RESOURCE, 5, charge("c2")))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.offeredToken()).isEqualTo(5);
                    assertThat(e.highestToken()).isEqualTo(6);
                });
        assertThatThrownBy(() -> gate.write(RESOURCE, 5, tx -> {
                    markInvoiced(tx, "c3");
                    outbox.record(tx, RESOURCE, 5, charge("c3"));
                }))
                .isInstanceOf(StaleTokenException.class);

        assertThat(outbox.state(key("c2"))).isEmpty();
        assertThat(outbox.state(key("c3"))).isEmpty();
        assertThat(work()).isEmpty();
        assertThat(outbox.stats()).isEqualTo(new OutboxStats(1, 0, 0, 0));
    }

    /** On a pool of ONE connection: recording inside the gate's work must not need a second one. */
    @Test
    void anIntentRecordedInsideGateWorkCommitsWithThatWorkOrNotAtAll() throws SQLException {
        CountingDataSource pool = new CountingDataSource(ds, 1);
        FenceGate smallGate = new FenceGate(pool);
        Outbox smallOutbox = new Outbox(pool);

        smallGate.write(RESOURCE, 7, tx -> {
            markInvoiced(tx, "c1");
            assertThat(smallOutbox.record(tx, RESOURCE, 7, charge("c1"))).isEqualTo(RecordOutcome.RECORDED);
        });
        IllegalStateException boom = new IllegalStateException("the work failed after recording");
        assertThatThrownBy(() -> smallGate.write(RESOURCE, 7, tx -> {
                    markInvoiced(tx, "c2");
                    smallOutbox.record(tx, RESOURCE, 7, charge("c2"));
                    throw boom;
                }))
                .isSameAs(boom);
        assertThatThrownBy(() -> smallGate.write(RESOURCE, 7, tx -> {
                    markInvoiced(tx, "c4");
                    smallOutbox.record(tx, RESOURCE, 7, OutboxIntent.of(key("c1"), "payments", "another body"));
                }))
                .isInstanceOf(IllegalArgumentException.class);

        try (Connection outside = pool.getConnection()) {
            assertThatThrownBy(() -> smallOutbox.record(outside, RESOURCE, 8, charge("c5")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("must run inside FenceGate work for resource '" + RESOURCE + "' with token 8")
                    .hasMessageContaining("is at 7");
        }

        assertThat(work()).containsExactly("c1");
        assertThat(smallOutbox.state(key("c1"))).isPresent();
        assertThat(smallOutbox.state(key("c2"))).isEmpty();
        assertThat(smallOutbox.state(key("c5"))).isEmpty();
        assertThat(pool.open()).isZero();
    }

    // ---- relaying -------------------------------------------------------------------------------------------

    /**
     * Issue 21, defect 5. Timeline: the relay claims c1 (the last allowed attempt), the sender delivers it, the
     * database is unreachable once while the relay records the delivery. The relay says so (a StoreException) and
     * leaves the claim as it is: c1 is neither a failed attempt nor DEAD with the store's error as its last error.
     * Once the lease ends, c1 is sent again and recorded delivered (at-least-once; the key makes it harmless).
     */
    @Test
    void aDeliveryWhoseRecordingFailsIsNeverCountedAsAFailedSend() throws InterruptedException {
        gate.advance(RESOURCE, 33);
        outbox.record(RESOURCE, 33, charge("c1"));
        RefusingDataSource flaky = new RefusingDataSource(ds);
        RelayConfig lastAttempt = QUICK.withMaxAttempts(1).withLease(Duration.ofMillis(200));
        OutboxRelay relay = new OutboxRelay(flaky, "relay-1", StoreConfig.defaults(), lastAttempt);
        List<String> sent = new CopyOnWriteArrayList<>();

        assertThatThrownBy(() -> relay.relayNext(claim -> {
                    sent.add(claim.key().value());
                    flaky.refuseNext(1); // the receiver took it; now the store is unreachable for one call
                }))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("recording the delivery of 'billing:c1:2026-11'");

        assertThat(outbox.state(key("c1"))).get().satisfies(s -> {
            assertThat(s.status()).as("still claimed, not failed").isEqualTo("sending");
            assertThat(s.lastError()).isNull();
        });
        Thread.sleep(300); // stands for the time until the lease of the unrecorded attempt ends
        assertThat(relay("relay-2", QUICK.withMaxAttempts(2))
                        .relayNext(claim -> sent.add(claim.key().value())))
                .get()
                .extracting(OutboxRelay.Relayed::outcome)
                .isEqualTo(RelayOutcome.DELIVERED);
        assertThat(sent).containsExactly("billing:c1:2026-11", "billing:c1:2026-11");
    }

    @Test
    void aRelayDeliversEachIntentWithItsKeyAndRecordsIt() {
        gate.advance(RESOURCE, 1);
        for (String customer : List.of("c1", "c2", "c3")) {
            outbox.record(RESOURCE, 1, charge(customer));
        }
        List<String> sent = new CopyOnWriteArrayList<>();
        OutboxRelay relay = relay("relay-1", QUICK);
        assertThat(relay.drain(claim -> sent.add(claim.key() + " -> " + claim.destination()), 100))
                .isEqualTo(3);
        assertThat(relay.drain(claim -> sent.add("again " + claim.key()), 100)).isZero();

        assertThat(sent)
                .containsExactly(
                        "billing:c1:2026-11 -> payments",
                        "billing:c2:2026-11 -> payments",
                        "billing:c3:2026-11 -> payments");
        assertThat(outbox.stats()).isEqualTo(new OutboxStats(0, 0, 3, 0));
        assertThat(outbox.state(key("c2"))).get().satisfies(s -> {
            assertThat(s.status()).isEqualTo("delivered");
            assertThat(s.relay()).isEqualTo("relay-1");
            assertThat(s.attempts()).isEqualTo(1);
            assertThat(s.deliveredAt()).isNotNull();
        });
    }

    /**
     * Relay 1 claims c1 with a 200 ms lease, sends it, then stalls past its lease before recording; relay 2 claims
     * c1 (fence 2), sends it with the SAME key and records it. Relay 1 wakes: it can record nothing.
     */
    @Test
    void aRelayThatLostItsClaimCannotRecordAndTheSecondSendCarriesTheSameKey() throws Exception {
        gate.advance(RESOURCE, 1);
        outbox.record(RESOURCE, 1, charge("c1"));
        OutboxRelay first = relay("relay-1", QUICK.withLease(Duration.ofMillis(200)));
        OutboxRelay second = relay("relay-2", QUICK);

        OutboxClaim stalled = first.claimNext().orElseThrow();
        assertThat(stalled.fence()).isEqualTo(1);
        assertThat(second.claimNext()).as("the lease keeps other relays away").isEmpty();
        Thread.sleep(400); // stands for relay 1's stall after its send, longer than its 200 ms lease

        OutboxClaim taken = second.claimNext().orElseThrow();
        assertThat(taken.key()).as("the second send carries the same key").isEqualTo(stalled.key());
        assertThat(taken.fence()).isEqualTo(2);
        assertThat(taken.attempt()).isEqualTo(2);

        // relay 1 wakes while relay 2 still holds the intent: only the fence tells them apart
        assertThat(first.delivered(stalled)).isEqualTo(RelayOutcome.CLAIM_LOST);
        assertThat(first.failed(stalled, "late")).isEqualTo(RelayOutcome.CLAIM_LOST);
        assertThat(first.renew(stalled)).isFalse();
        assertThat(outbox.state(key("c1"))).get().satisfies(s -> {
            assertThat(s.status()).isEqualTo("sending");
            assertThat(s.relay()).isEqualTo("relay-2");
        });
        assertThat(second.delivered(taken)).isEqualTo(RelayOutcome.DELIVERED);
        assertThat(first.delivered(stalled)).isEqualTo(RelayOutcome.CLAIM_LOST);
        assertThat(outbox.state(key("c1"))).get().satisfies(s -> {
            assertThat(s.status()).isEqualTo("delivered");
            assertThat(s.relay()).isEqualTo("relay-2");
            assertThat(s.fence()).isEqualTo(2);
            assertThat(s.lastError()).isNull();
        });
    }

    @Test
    void failuresAreRetriedUntilTheLastAllowedAttemptThenTheIntentIsDeadWithItsLastError() {
        gate.advance(RESOURCE, 1);
        outbox.record(RESOURCE, 1, charge("c1"));
        OutboxRelay relay = relay("relay-1", QUICK.withMaxAttempts(3));
        AtomicInteger calls = new AtomicInteger();
        OutboxSender failing = claim -> {
            throw new java.io.IOException("HTTP 503 on attempt " + calls.incrementAndGet());
        };
        assertThat(relay.relayNext(failing))
                .get()
                .extracting(OutboxRelay.Relayed::outcome)
                .isEqualTo(RelayOutcome.RETRY_SCHEDULED);
        assertThat(outbox.state(key("c1"))).get().satisfies(s -> {
            assertThat(s.status()).isEqualTo("pending");
            assertThat(s.lastError()).contains("HTTP 503 on attempt 1");
        });
        assertThat(relay.relayNext(failing))
                .get()
                .extracting(OutboxRelay.Relayed::outcome)
                .isEqualTo(RelayOutcome.RETRY_SCHEDULED);
        assertThat(relay.relayNext(failing))
                .get()
                .extracting(OutboxRelay.Relayed::outcome)
                .isEqualTo(RelayOutcome.DEAD);
        assertThat(relay.relayNext(failing)).as("a dead intent is not sent").isEmpty();
        assertThat(calls).hasValue(3);
        assertThat(outbox.state(key("c1"))).get().satisfies(s -> {
            assertThat(s.status()).isEqualTo("dead");
            assertThat(s.attempts()).isEqualTo(3);
            assertThat(s.lastError()).contains("java.io.IOException: HTTP 503 on attempt 3");
        });
        assertThat(outbox.stats()).isEqualTo(new OutboxStats(0, 0, 0, 1));

        assertThat(outbox.requeueDead(key("c1"))).isTrue();
        assertThat(outbox.requeueDead(key("c1"))).as("no longer dead").isFalse();
        assertThat(relay.relayNext(claim -> {}))
                .get()
                .extracting(OutboxRelay.Relayed::outcome)
                .isEqualTo(RelayOutcome.DELIVERED);
    }

    @Test
    void aFailedIntentWaitsForItsBackoffOnTheDatabaseClock() {
        gate.advance(RESOURCE, 1);
        outbox.record(RESOURCE, 1, charge("c1"));
        OutboxRelay relay =
                relay("relay-1", RelayConfig.defaults().withBackoff(Duration.ofHours(1), Duration.ofHours(2)));
        Instant before = Instant.now();
        assertThat(relay.relayNext(claim -> {
                    throw new IllegalStateException("receiver down");
                }))
                .get()
                .extracting(OutboxRelay.Relayed::outcome)
                .isEqualTo(RelayOutcome.RETRY_SCHEDULED);
        assertThat(relay.claimNext()).as("not due during its backoff").isEmpty();
        assertThat(outbox.state(key("c1"))).get().satisfies(s -> assertThat(s.nextAttemptAt())
                .isAfter(before.plus(Duration.ofMinutes(59)))
                .isBefore(before.plus(Duration.ofMinutes(61))));
        assertThat(RelayConfig.defaults().backoffMillisAfter(1)).isEqualTo(1_000);
        assertThat(RelayConfig.defaults().backoffMillisAfter(4)).isEqualTo(8_000);
        assertThat(RelayConfig.defaults().backoffMillisAfter(1000)).isEqualTo(300_000);
    }

    @Test
    void fourRelaysDeliverEachOfTwoHundredIntentsExactlyOnce() throws Exception {
        gate.advance(RESOURCE, 1);
        for (int i = 0; i < 200; i++) {
            outbox.record(RESOURCE, 1, charge("c" + i));
        }
        Map<IdempotencyKey, AtomicInteger> sends = new ConcurrentHashMap<>();
        ExecutorService pool = threads(4);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Integer>> relays = new ArrayList<>();
        for (int r = 1; r <= 4; r++) {
            OutboxRelay relay = relay("relay-" + r, QUICK);
            relays.add(pool.submit(() -> {
                await(start);
                return relay.drain(
                        claim -> sends.computeIfAbsent(claim.key(), k -> new AtomicInteger())
                                .incrementAndGet(),
                        1000);
            }));
        }
        start.countDown();
        int handled = 0;
        for (Future<Integer> relay : relays) {
            handled += relay.get(60, TimeUnit.SECONDS);
        }
        assertThat(handled).isEqualTo(200);
        assertThat(sends).hasSize(200);
        assertThat(sends.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
        assertThat(outbox.stats()).isEqualTo(new OutboxStats(0, 0, 200, 0));
    }

    /** Ordered intents of one destination go one at a time, oldest first; others are not held up. */
    @Test
    void orderedIntentsOfADestinationGoOneAtATimeInTheOrderRecorded() {
        gate.advance(RESOURCE, 1);
        for (String entry : List.of("e1", "e2", "e3")) {
            outbox.record(
                    RESOURCE,
                    1,
                    OutboxIntent.of(IdempotencyKey.of("ledger", entry), "ledger", entry)
                            .inOrder());
        }
        outbox.record(RESOURCE, 1, OutboxIntent.of(IdempotencyKey.of("ledger", "note"), "ledger", "unordered"));
        outbox.record(RESOURCE, 1, OutboxIntent.of(IdempotencyKey.of("mail", "m1"), "mail", "m1"));
        OutboxRelay one = relay("relay-1", QUICK.withMaxAttempts(2));
        OutboxRelay two = relay("relay-2", QUICK.withMaxAttempts(2));

        OutboxClaim e1 = one.claimNext().orElseThrow();
        assertThat(e1.payload()).isEqualTo("e1");
        assertThat(two.claimNext()).get().extracting(OutboxClaim::payload).isEqualTo("unordered");
        assertThat(two.claimNext()).get().extracting(OutboxClaim::payload).isEqualTo("m1");
        assertThat(two.claimNext()).as("e2 waits while e1 is in flight").isEmpty();

        assertThat(one.failed(e1, "timeout")).isEqualTo(RelayOutcome.RETRY_SCHEDULED);
        assertThat(two.claimNext())
                .as("e1 is retried before e2")
                .get()
                .extracting(OutboxClaim::payload)
                .isEqualTo("e1");
        OutboxClaim e1Again = outboxClaimOf(two, "e1");
        assertThat(two.failed(e1Again, "timeout")).isEqualTo(RelayOutcome.DEAD);
        OutboxClaim e2 = one.claimNext().orElseThrow();
        assertThat(e2.payload())
                .as("a dead predecessor no longer holds the line")
                .isEqualTo("e2");
        assertThat(two.claimNext()).isEmpty();
        assertThat(one.delivered(e2)).isEqualTo(RelayOutcome.DELIVERED);
        assertThat(two.claimNext()).get().extracting(OutboxClaim::payload).isEqualTo("e3");
    }

    /** The claim on {@code payload} that {@code relay} took last, read back from the store. */
    private OutboxClaim outboxClaimOf(OutboxRelay relay, String payload) {
        OutboxState s = outbox.state(IdempotencyKey.of("ledger", payload)).orElseThrow();
        assertThat(s.relay()).isEqualTo(relay.relayId());
        return new OutboxClaim(s.key(), s.destination(), s.payload(), s.relay(), s.fence(), s.attempts());
    }

    @Test
    void statsCountEveryStateAndPurgeRemovesOnlyOldDeliveredIntents() throws SQLException {
        gate.advance(RESOURCE, 1);
        for (String customer : List.of("c1", "c2", "c3", "c4")) {
            outbox.record(RESOURCE, 1, charge(customer));
        }
        OutboxRelay relay = relay("relay-1", QUICK.withMaxAttempts(1));
        relay.relayNext(claim -> {}); // c1 delivered
        relay.relayNext(claim -> {}); // c2 delivered
        relay.relayNext(claim -> {
            throw new IllegalStateException("refused"); // c3 dead
        });
        relay.claimNext().orElseThrow(); // c4 sending
        assertThat(outbox.stats()).isEqualTo(new OutboxStats(0, 1, 2, 1));
        assertThat(outbox.stats().outstanding()).isEqualTo(1);

        assertThat(outbox.purgeDelivered(Duration.ofHours(1)))
                .as("delivered just now")
                .isZero();
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE leasehold_outbox SET delivered_at = delivered_at - INTERVAL '2' HOUR"
                    + " WHERE idem_key = 'billing:c1:2026-11'");
        }
        assertThat(outbox.purgeDelivered(Duration.ofHours(1))).isEqualTo(1);
        assertThat(outbox.state(key("c1"))).isEmpty();
        assertThat(outbox.stats()).isEqualTo(new OutboxStats(0, 1, 1, 1));
    }

    @Test
    void badInputIsRejectedAtTheDoorAndNothingIsWritten() {
        gate.advance(RESOURCE, 1);
        assertThatThrownBy(() -> outbox.record(RESOURCE, 1, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("intent must not be null");
        assertThatThrownBy(() -> outbox.record("", 1, charge("c1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("resource must be a non-blank string");
        assertThatThrownBy(() -> outbox.record(RESOURCE, -1, charge("c1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("token must be positive");
        assertThatThrownBy(() -> OutboxIntent.of(key("c1"), " ", "p"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("destination");
        assertThatThrownBy(() -> OutboxIntent.of(key("c1"), "d", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("payload must not be null");
        assertThatThrownBy(() -> OutboxIntent.of(null, "d", "p")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RelayConfig.defaults().withMaxAttempts(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxAttempts must be 1 to 1000, was 0");
        assertThatThrownBy(() -> RelayConfig.defaults().withLease(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease must be positive");
        assertThatThrownBy(() -> RelayConfig.defaults().withBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most maxBackoff");
        assertThatThrownBy(() -> RelayConfig.defaults().withBackoff(Duration.ofMillis(-1), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("initialBackoff must be 0 to");
        assertThatThrownBy(() -> new OutboxRelay(ds, " "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("relayId");
        OutboxRelay relay = relay("relay-1", QUICK);
        assertThatThrownBy(() -> relay.relayNext(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> relay.drain(claim -> {}, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("max must be at least 1, was 0");
        assertThatThrownBy(() -> outbox.purgeDelivered(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("olderThan");

        assertThat(outbox.stats()).isEqualTo(new OutboxStats(0, 0, 0, 0));
    }

    /**
     * Issue 21: every outbox statement on a locked row keeps the configured lock timeout. Another connection holds
     * the intents' rows (SELECT ... FOR UPDATE in an open transaction; then the fence's mark); with a 200 ms lock
     * timeout (1 s on MariaDB, which counts seconds) renew, delivered, failed, requeueDead, purgeDelivered and record
     * (whose fence check waits on the mark) must each fail with a retryable StoreException that says "a lock
     * timeout", within 5 s each; a claim skips the locked intent at once. Once the rows are free they pass.
     */
    @Test
    void everyOutboxStatementOnALockedRowFailsWithinTheLockTimeout() throws SQLException {
        StoreConfig store = StoreConfig.defaults().withLockTimeout(Duration.ofMillis(200));
        Outbox impatient = new Outbox(ds, store);
        OutboxRelay relay = new OutboxRelay(ds, "r1", store, QUICK.withMaxAttempts(1));
        for (String customer : List.of("dead", "delivered", "sending")) { // claimed in this order
            impatient.record(RESOURCE, 1, charge(customer));
        }
        OutboxClaim dead = relay.claimNext().orElseThrow();
        assertThat(relay.failed(dead, "boom")).isEqualTo(RelayOutcome.DEAD);
        OutboxClaim delivered = relay.claimNext().orElseThrow();
        assertThat(relay.delivered(delivered)).isEqualTo(RelayOutcome.DELIVERED);
        OutboxClaim sending = relay.claimNext().orElseThrow();
        try (Connection holder = ds.getConnection()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.executeQuery("SELECT idem_key FROM leasehold_outbox FOR UPDATE")
                        .close();
            }
            try {
                lockTimeoutWithin5s("renew", () -> relay.renew(sending));
                lockTimeoutWithin5s("delivered", () -> relay.delivered(sending));
                lockTimeoutWithin5s("failed", () -> relay.failed(sending, "e"));
                lockTimeoutWithin5s("requeueDead", () -> impatient.requeueDead(dead.key()));
                lockTimeoutWithin5s("purgeDelivered", () -> impatient.purgeDelivered(Duration.ZERO));
                org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                        Duration.ofSeconds(5), () -> assertThat(new OutboxRelay(ds, "r2", store, QUICK).claimNext())
                                .as("a claim skips locked intents")
                                .isEmpty());
            } finally {
                holder.rollback();
            }
            try (Statement s = holder.createStatement()) {
                s.executeQuery("SELECT token FROM leasehold_fence FOR UPDATE").close();
            }
            try {
                lockTimeoutWithin5s("record", () -> impatient.record(RESOURCE, 1, charge("late")));
            } finally {
                holder.rollback();
            }
        }
        assertThat(relay.delivered(sending)).as("once the rows are free").isEqualTo(RelayOutcome.DELIVERED);
        assertThat(impatient.requeueDead(dead.key())).isTrue();
        assertThat(impatient.state(charge("late").key()))
                .as("the timed-out record kept nothing")
                .isEmpty();
    }

    /** Asserts that {@code call} fails with a retryable lock timeout, preempting it if it still waits after 5 s. */
    private static void lockTimeoutWithin5s(String what, org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                Duration.ofSeconds(5),
                () -> assertThatThrownBy(call).as(what).isInstanceOfSatisfying(StoreException.class, e -> {
                    assertThat(e.retryable()).as(what + " retryable").isTrue();
                    assertThat(e).as(what).hasMessageContaining("failed: a lock timeout");
                }),
                what + " still waited for the locked row after 5 s (10 lock timeouts)");
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("latch not released within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
