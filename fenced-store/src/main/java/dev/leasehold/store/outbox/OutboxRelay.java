package dev.leasehold.store.outbox;

import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.internal.Args;
import dev.leasehold.store.internal.Jdbc;
import dev.leasehold.store.internal.OutboxSql;
import dev.leasehold.store.internal.SqlDialect;
import dev.leasehold.store.internal.StoreContext;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers the intents of an {@link Outbox}: any number of relays, on any instances, claim due intents, call the
 * user's {@link OutboxSender} with the key and payload, and record the outcome.
 *
 * <p><b>Delivery is at-least-once; with a receiver that honours the key it is effectively once.</b> An intent is
 * sent again whenever an attempt's outcome was not recorded: the relay crashed, or stalled after sending for longer
 * than its lease, so that another relay claimed the intent. The window is between the receiver accepting the
 * request and the relay recording it; only the key makes a second send in that window harmless.
 *
 * <p>One delivery, {@link #relayNext}:
 * <ol>
 *   <li>claim (one short transaction; one statement in it on PostgreSQL): the oldest due intent (pending and past its
 *       backoff, or sending with an expired lease; an ordered intent only after the older ordered intents of its
 *       destination), locked with {@code FOR UPDATE SKIP LOCKED} so relays never wait on each other; status sending,
 *       a lease from the database clock, {@code fence + 1}, {@code attempts + 1};</li>
 *   <li>send: the sender runs with no transaction open and no lock held;</li>
 *   <li>record (one short transaction of one statement,
 *       {@code WHERE key = ? AND fence = ? AND status = 'sending'}): delivered; or, on a failure, pending again
 *       after an exponential backoff, or dead with the last error on the last allowed attempt. A relay that lost
 *       its claim updates 0 rows and records nothing ({@link RelayOutcome#CLAIM_LOST}).
 *       </li>
 * </ol>
 * The relay does not schedule itself: call {@link #relayNext} or {@link #drain} from your own executor, on as many
 * instances as you like. Thread-safe.
 */
public final class OutboxRelay {

    private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);
    private static final int MAX_ERROR = 2000;

    /** What {@link #relayNext} did: the claim it worked on and the outcome it recorded (or could not). */
    public record Relayed(OutboxClaim claim, RelayOutcome outcome) {}

    private final String relayId;
    private final RelayConfig config;
    private final StoreContext context;
    private final OutboxSql sql;

    /**
     * A relay with {@link StoreConfig#defaults()} and {@link RelayConfig#defaults()}.
     *
     * @param ds      where the schema lives (see {@link FencedSchema})
     * @param relayId names this relay in claims and logs, 1 to 200 characters
     */
    public OutboxRelay(DataSource ds, String relayId) {
        this(ds, relayId, StoreConfig.defaults(), RelayConfig.defaults());
    }

    /**
     * @param ds          where the schema lives (see {@link FencedSchema})
     * @param relayId     names this relay in claims and logs, 1 to 200 characters
     * @param storeConfig table prefix, retries and the rest
     * @param config      lease, attempts and backoff of the relay
     */
    public OutboxRelay(DataSource ds, String relayId, StoreConfig storeConfig, RelayConfig config) {
        this.relayId = Args.name(relayId, "relayId");
        this.config = Args.notNull(config, "config");
        this.context = new StoreContext(ds, Args.notNull(storeConfig, "storeConfig"));
        this.sql = new OutboxSql(context);
    }

    /** @return this relay's name, as given to the constructor */
    public String relayId() {
        return relayId;
    }

    /**
     * Claims the next due intent, sends it and records the outcome.
     *
     * @param sender delivers the intent; whatever it throws is recorded as a failed attempt
     * @return empty if no intent is due right now
     * @throws dev.leasehold.store.StoreException if the claim, or the recording of the outcome, failed. A recording that failed is never
     *                        counted as a failed send: the intent stays claimed and is sent again once its lease ends
     *                        (at-least-once; the key makes the second send harmless)
     */
    public Optional<Relayed> relayNext(OutboxSender sender) {
        Args.notNull(sender, "sender");
        Optional<OutboxClaim> claimed = claimNext();
        if (claimed.isEmpty()) {
            return Optional.empty();
        }
        OutboxClaim claim = claimed.get();
        String failure = send(sender, claim);
        // Recorded outside the send's try: a failure to record is the store's, never a failed send.
        RelayOutcome outcome = failure == null ? delivered(claim) : failed(claim, failure);
        return Optional.of(new Relayed(claim, outcome));
    }

    /** Runs the sender; null if it returned, else what went wrong (the interrupt is kept). */
    private static String send(OutboxSender sender, OutboxClaim claim) {
        try {
            sender.send(claim);
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while sending";
        } catch (Exception e) {
            return e.toString();
        }
    }

    /**
     * Relays intents until none is due, {@code max} were handled or the thread is interrupted.
     *
     * @param sender delivers each intent
     * @param max    the most intents to handle: at least 1
     * @return how many intents were handled (whatever their outcome)
     */
    public int drain(OutboxSender sender, int max) {
        Args.notNull(sender, "sender");
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1, was " + max);
        }
        int handled = 0;
        while (handled < max
                && !Thread.currentThread().isInterrupted()
                && relayNext(sender).isPresent()) {
            handled++;
        }
        return handled;
    }

    /**
     * Claims the oldest due intent for this relay, for a caller that sends it itself and then records the outcome
     * with {@link #delivered} or {@link #failed}.
     *
     * @return the claim, or empty if none is due (or all are locked)
     */
    public Optional<OutboxClaim> claimNext() {
        long leaseMillis = config.lease().toMillis();
        String operation = "claiming an outbox intent for relay '" + relayId + "'";
        Optional<OutboxClaim> claimed = context.jdbc()
                .inTransactionRetrying(operation, context::skipLockedWait, tx -> sql.claim(tx, relayId, leaseMillis))
                .map(row -> new OutboxClaim(
                        new IdempotencyKey(row.key()),
                        row.destination(),
                        row.payload(),
                        row.relay(),
                        row.fence(),
                        row.attempt()));
        claimed.ifPresent(c -> log.debug(
                "relay '{}' claimed intent '{}' (fence {}, attempt {})", relayId, c.key(), c.fence(), c.attempt()));
        return claimed;
    }

    /**
     * Extends the claim's lease from now (database clock), for a send that takes longer than expected.
     *
     * @param claim the claim {@link #claimNext} returned
     * @return false if the claim was lost: stop, another relay has the intent
     */
    public boolean renew(OutboxClaim claim) {
        Args.notNull(claim, "claim");
        return context.jdbc().inTransaction("renewing the claim on outbox intent '" + claim.key() + "'", c -> {
            SqlDialect dialect = sql.on(c);
            return Jdbc.oneRow(
                    Jdbc.update(
                            c,
                            "UPDATE " + dialect.tables.outbox() + " SET lease_until = "
                                    + dialect.nowPlusMillis() + " WHERE idem_key = ? AND fence = ? AND status = '"
                                    + OutboxSql.SENDING
                                    + "'",
                            config.lease().toMillis(),
                            claim.key().value(),
                            claim.fence()),
                    "renew");
        });
    }

    /**
     * Records that the intent was delivered, if {@code claim} is still current.
     *
     * @param claim the claim {@link #claimNext} returned
     * @return {@link RelayOutcome#DELIVERED}, or {@link RelayOutcome#CLAIM_LOST} if nothing could be recorded
     */
    public RelayOutcome delivered(OutboxClaim claim) {
        Args.notNull(claim, "claim");
        boolean recorded = context.jdbc().inTransaction("recording the delivery of '" + claim.key() + "'", c -> {
            SqlDialect dialect = sql.on(c);
            return Jdbc.oneRow(
                    Jdbc.update(
                            c,
                            "UPDATE " + dialect.tables.outbox() + " SET status = '"
                                    + OutboxSql.DELIVERED + "', lease_until = NULL, last_error = NULL, delivered_at = "
                                    + dialect.now() + " WHERE idem_key = ? AND fence = ? AND status = '"
                                    + OutboxSql.SENDING + "'",
                            claim.key().value(),
                            claim.fence()),
                    "delivered");
        });
        return recorded ? RelayOutcome.DELIVERED : lost(claim, "delivery");
    }

    /**
     * Records a failed attempt, if {@code claim} is still current: pending again after the backoff, or dead if this
     * was the last allowed attempt.
     *
     * @param claim the claim {@link #claimNext} returned
     * @param error what went wrong (cut to 2000 characters; null or blank is recorded as "(no message)")
     * @return {@link RelayOutcome#RETRY_SCHEDULED}, {@link RelayOutcome#DEAD} or {@link RelayOutcome#CLAIM_LOST}
     */
    public RelayOutcome failed(OutboxClaim claim, String error) {
        Args.notNull(claim, "claim");
        String text = error == null || error.isBlank()
                ? "(no message)"
                : error.length() > MAX_ERROR ? error.substring(0, MAX_ERROR) : error;
        boolean dead = claim.attempt() >= config.maxAttempts();
        boolean recorded = context.jdbc().inTransaction("recording a failed attempt of '" + claim.key() + "'", c -> {
            SqlDialect dialect = sql.on(c);
            String where = " WHERE idem_key = ? AND fence = ? AND status = '" + OutboxSql.SENDING + "'";
            int count = dead
                    ? Jdbc.update(
                            c,
                            "UPDATE " + dialect.tables.outbox() + " SET status = '" + OutboxSql.DEAD
                                    + "', lease_until = NULL, last_error = ?" + where,
                            text,
                            claim.key().value(),
                            claim.fence())
                    : Jdbc.update(
                            c,
                            "UPDATE " + dialect.tables.outbox() + " SET status = '" + OutboxSql.PENDING
                                    + "', lease_until = NULL, last_error = ?, next_attempt_at = "
                                    + dialect.nowPlusMillis()
                                    + where,
                            text,
                            config.backoffMillisAfter(claim.attempt()),
                            claim.key().value(),
                            claim.fence());
            return Jdbc.oneRow(count, "failed attempt");
        });
        if (!recorded) {
            return lost(claim, "failed attempt");
        }
        if (dead) {
            log.warn(
                    "relay '{}': intent '{}' to '{}' is DEAD after {} attempt(s); last error: {}",
                    relayId,
                    claim.key(),
                    claim.destination(),
                    claim.attempt(),
                    text);
            return RelayOutcome.DEAD;
        }
        log.debug(
                "relay '{}': attempt {} of intent '{}' failed, retrying later: {}",
                relayId,
                claim.attempt(),
                claim.key(),
                text);
        return RelayOutcome.RETRY_SCHEDULED;
    }

    private RelayOutcome lost(OutboxClaim claim, String what) {
        log.warn(
                "relay '{}' lost its claim on intent '{}' (fence {}) before recording its {}: another relay has it;"
                        + " a lease of {} may be shorter than a send",
                relayId,
                claim.key(),
                claim.fence(),
                what,
                config.lease());
        return RelayOutcome.CLAIM_LOST;
    }
}
