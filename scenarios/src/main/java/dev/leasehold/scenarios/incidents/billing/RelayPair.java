package dev.leasehold.scenarios.incidents.billing;

import dev.leasehold.scenarios.Latches;
import dev.leasehold.scenarios.report.Timeline;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.outbox.IdempotencyKey;
import dev.leasehold.store.outbox.OutboxClaim;
import dev.leasehold.store.outbox.OutboxRelay;
import dev.leasehold.store.outbox.OutboxSender;
import dev.leasehold.store.outbox.RelayConfig;
import dev.leasehold.store.outbox.RelayOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * Two outbox relays, {@code relay-1} and {@code relay-2}, each on its own thread, delivering billing intents to the
 * payment API with their keys. The first relay to send {@code stallKey} stalls after the provider answered and before
 * recording the delivery, until the other relay has claimed the intent (its lease expired) and delivered it again;
 * then it wakes and tries to record. Measures, for every other delivery, the window from the send to the recorded
 * outcome. Used by {@link BillingExternalScenario}.
 */
final class RelayPair implements AutoCloseable {

    static final long LEASE_MS = 400;
    private static final long POLL_MS = 20;
    private static final long WAIT_MS = 30_000;

    private final Timeline timeline;
    private final PaymentClient client;
    private final IdempotencyKey stallKey;
    private final CountDownLatch allDelivered;
    private final CountDownLatch stallResolved = new CountDownLatch(1);
    private final CountDownLatch stallerRecorded = new CountDownLatch(1);
    private final AtomicBoolean stalling = new AtomicBoolean();
    private final List<OutboxRelay> relays = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final Set<IdempotencyKey> delivered = Collections.synchronizedSet(new HashSet<>());
    private final List<String> lateRecords = Collections.synchronizedList(new ArrayList<>());
    private final List<Long> windows = Collections.synchronizedList(new ArrayList<>());
    private volatile String staller;
    private volatile long stallMillis;
    private volatile boolean stopped;

    RelayPair(
            DataSource ds,
            StoreConfig config,
            PaymentClient client,
            Timeline timeline,
            IdempotencyKey stallKey,
            int intents) {
        this.timeline = timeline;
        this.client = client;
        this.stallKey = stallKey;
        this.allDelivered = new CountDownLatch(intents);
        RelayConfig relayConfig = RelayConfig.defaults()
                .withLease(Duration.ofMillis(LEASE_MS))
                .withBackoff(Duration.ofMillis(50), Duration.ofSeconds(1))
                .withMaxAttempts(5);
        for (String name : List.of("relay-1", "relay-2")) {
            relays.add(new OutboxRelay(ds, name, config, relayConfig));
        }
    }

    void start() {
        for (OutboxRelay relay : relays) {
            Thread thread = new Thread(() -> loop(relay), relay.relayId());
            threads.add(thread);
            thread.start();
        }
    }

    /** Waits until every intent was delivered and the stalled relay tried to record. */
    void awaitDone() throws InterruptedException {
        Latches.await(allDelivered, WAIT_MS, "every intent is delivered");
        Latches.await(stallerRecorded, WAIT_MS, "the stalled relay tried to record");
    }

    String staller() {
        return staller;
    }

    long stallMillis() {
        return stallMillis;
    }

    List<String> lateRecords() {
        return List.copyOf(lateRecords);
    }

    /** Send-to-recorded windows of the deliveries that did not stall, in ms. */
    List<Long> windows() {
        synchronized (windows) {
            return List.copyOf(windows);
        }
    }

    private void loop(OutboxRelay relay) {
        String me = relay.relayId();
        long[] sendStart = new long[1];
        OutboxSender sender = claim -> send(me, claim, sendStart);
        while (!stopped && !Thread.currentThread().isInterrupted()) {
            Optional<OutboxRelay.Relayed> relayed;
            try {
                relayed = relay.relayNext(sender);
            } catch (RuntimeException e) {
                if (!stopped) {
                    timeline.problem(me, "relay failed: " + e);
                }
                return;
            }
            if (relayed.isEmpty()) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(POLL_MS)); // the relay's idle polling interval
                continue;
            }
            OutboxClaim claim = relayed.get().claim();
            RelayOutcome outcome = relayed.get().outcome();
            String customer = PaymentClient.customerOf(claim.payload());
            if (outcome == RelayOutcome.DELIVERED) {
                timeline.accepted(
                        me,
                        "recorded " + customer + " as delivered (fence " + claim.fence() + ")",
                        claim.fence(),
                        customer);
                windows.add(timeline.now() - sendStart[0]); // the stalled send is never recorded, so never here
                if (delivered.add(claim.key())) {
                    allDelivered.countDown();
                }
                if (claim.key().equals(stallKey) && staller != null && !me.equals(staller)) {
                    stallResolved.countDown();
                }
            } else if (outcome == RelayOutcome.CLAIM_LOST) {
                lateRecords.add(me + "'s delivery of " + customer + " (fence " + claim.fence() + ")");
                timeline.rejected(
                        me,
                        "its record of " + customer + " REFUSED: claim lost (fence " + claim.fence()
                                + "; another relay claimed it after the lease)",
                        claim.fence(),
                        customer);
            } else {
                timeline.problem(me, "attempt " + claim.attempt() + " for " + customer + ": " + outcome);
            }
            if (claim.key().equals(stallKey) && me.equals(staller)) {
                stallerRecorded.countDown();
            }
        }
    }

    /** The sender: the charge, with the intent's key. */
    private void send(String me, OutboxClaim claim, long[] sendStart) throws Exception {
        String customer = PaymentClient.customerOf(claim.payload());
        sendStart[0] = timeline.now();
        PaymentClient.Answer answer = client.charge(claim.payload(), claim.key());
        timeline.info(
                me,
                "sent " + customer + " with key " + claim.key() + " (attempt " + claim.attempt() + "): "
                        + answer.status() + (answer.replayed() ? ", replayed from the key" : ""));
        if (claim.key().equals(stallKey) && stalling.compareAndSet(false, true)) {
            staller = me;
            timeline.span(
                    me,
                    Timeline.SpanKind.LEASE,
                    "claim, lease " + LEASE_MS + " ms",
                    sendStart[0],
                    sendStart[0] + LEASE_MS); // the claim was taken just before the send
            int pause = timeline.begin(me, Timeline.SpanKind.PAUSE, "stalled between send and record");
            timeline.problem(
                    me,
                    "STALLS after the provider answered, before recording (a GC pause), longer than its " + LEASE_MS
                            + " ms lease");
            long from = timeline.now();
            Latches.await(stallResolved, WAIT_MS, "another relay delivers " + customer);
            stallMillis = timeline.now() - from;
            timeline.end(pause);
            timeline.info(me, "wakes up after " + stallMillis + " ms and records the delivery of " + customer);
        }
    }

    @Override
    public void close() {
        stopped = true;
        stallResolved.countDown();
        for (Thread thread : threads) {
            thread.interrupt();
        }
        for (Thread thread : threads) {
            try {
                thread.join(WAIT_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
