package dev.leasehold.store.outbox;

import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StaleTokenException;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.internal.Args;
import dev.leasehold.store.internal.Jdbc;
import dev.leasehold.store.internal.OutboxSql;
import dev.leasehold.store.internal.SqlDialect;
import dev.leasehold.store.internal.StoreContext;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * A fenced outbox: what a leader intends to send to a system that knows nothing of tokens (a payment provider, an
 * accounting API) is recorded in the database, through the fence, and delivered later by {@link OutboxRelay} with
 * an idempotency key.
 *
 * <p><b>Delivery is at-least-once; with a receiver that honours the key it is effectively once.</b> A fencing token
 * protects only a resource that checks it; an outside call cannot be fenced, so the outbox moves the decision
 * ("charge c42 for 2026-11") into the database, where the fence applies, and gives every outside call a key that
 * repeats whenever the same work is sent again.
 *
 * <ul>
 *   <li>Recording is a fenced write: the intent is inserted in the same transaction as the token check, so a stale
 *       leader's intent is refused ({@link StaleTokenException}) and nothing of it is kept.</li>
 *   <li>A key is recorded once: a second intent with the same key is a no-op that returns
 *       {@link RecordOutcome#ALREADY_RECORDED}, whichever leader offers it (the same key with a different
 *       destination or payload is refused, since it means the key does not identify the work).</li>
 *   <li>Derive keys from the business identity ({@link IdempotencyKey#of}), never from the token or the leader, so a
 *       new leader retrying the same work produces the same key.</li>
 * </ul>
 *
 * <p>Two ways to record. {@link #record(String, long, OutboxIntent)} runs the token check and the insert in one
 * transaction through {@link FenceGate}. {@link #record(Connection, String, long, OutboxIntent)} inserts on the
 * connection of your own {@code FenceGate} work, so the intent commits or rolls back together with your business
 * writes (the point of an outbox):
 * <pre>{@code
 * gate.write("billing-2026-11", token, tx -> {
 *     markInvoiced(tx, customer);                                           // your write
 *     outbox.record(tx, "billing-2026-11", token, OutboxIntent.of(
 *             IdempotencyKey.of("billing", customer, "2026-11"), "payments", body));
 * });
 * }</pre>
 *
 * <p>Thread-safe; one instance can serve any number of threads.
 */
public final class Outbox {

    private final StoreContext context;
    private final OutboxSql sql;
    private final FenceGate gate;

    /**
     * An outbox on {@code ds} with {@link StoreConfig#defaults()}.
     *
     * @param ds where the schema lives (see {@link FencedSchema})
     */
    public Outbox(DataSource ds) {
        this(ds, StoreConfig.defaults());
    }

    /**
     * An outbox on {@code ds}.
     *
     * @param ds     where the schema lives (see {@link FencedSchema})
     * @param config table prefix, retries and the rest
     */
    public Outbox(DataSource ds, StoreConfig config) {
        this.context = new StoreContext(ds, config);
        this.sql = new OutboxSql(context);
        this.gate = new FenceGate(ds, config);
    }

    /**
     * Records {@code intent} in one transaction with the token check of {@code resource}.
     *
     * @param resource the name of the fenced resource
     * @param token    the writer's fencing token
     * @param intent   the call to make, under its idempotency key
     * @return {@link RecordOutcome#RECORDED}, or {@link RecordOutcome#ALREADY_RECORDED} if its key was recorded before
     * @throws StaleTokenException      if {@code token} is lower than the highest {@code resource} has seen; nothing
     *                                  was recorded
     * @throws IllegalArgumentException if an argument is invalid, or the key was recorded with another destination
     *                                  or payload
     */
    public RecordOutcome record(String resource, long token, OutboxIntent intent) {
        Args.notNull(intent, "intent");
        return gate.call(resource, token, tx -> insert(tx, resource, token, intent));
    }

    /**
     * Records {@code intent} on {@code tx}, the connection of {@link FenceGate} work that passed the check of
     * {@code resource} with {@code token}: the intent commits with that work, or not at all.
     *
     * <p>IMPORTANT: call it only inside {@code FenceGate.write/call} for the same resource and token; the gate's
     * check is what refuses a stale leader. As a guard against misuse it reads the resource's mark on {@code tx}
     * (locked by the gate) and refuses to record unless the mark equals {@code token}.
     *
     * @param tx       the connection the gate handed to its work
     * @param resource the resource the gate checked
     * @param token    the token the gate checked
     * @param intent   the call to make, under its idempotency key
     * @return {@link RecordOutcome#RECORDED}, or {@link RecordOutcome#ALREADY_RECORDED} if its key was recorded before
     * @throws StaleTokenException      if the mark is higher than {@code token}
     * @throws IllegalStateException    if the mark is lower or absent: this is not inside the gate's work
     * @throws IllegalArgumentException if an argument is invalid, or the key was recorded with another destination
     *                                  or payload
     * @throws SQLException             if the database fails; let it propagate, the gate rolls back
     */
    public RecordOutcome record(Connection tx, String resource, long token, OutboxIntent intent) throws SQLException {
        Args.notNull(tx, "tx");
        Args.name(resource, "resource");
        Args.token(token, "token");
        Args.notNull(intent, "intent");
        SqlDialect dialect = sql.on(tx);
        List<Long> mark = Jdbc.query(
                tx,
                "SELECT token FROM " + dialect.tables.fence() + " WHERE resource = ?",
                row -> row.getLong(1),
                resource);
        if (!mark.isEmpty() && mark.get(0) > token) {
            throw new StaleTokenException(resource, token, mark.get(0));
        }
        if (mark.isEmpty() || mark.get(0) != token) {
            throw new IllegalStateException("Outbox.record(tx, ...) must run inside FenceGate work for resource '"
                    + resource + "' with token " + token + ", but the fence of '" + resource + "' is "
                    + (mark.isEmpty() ? "not set" : "at " + mark.get(0)) + "; nothing was recorded");
        }
        return insert(tx, resource, token, intent);
    }

    private RecordOutcome insert(Connection tx, String resource, long token, OutboxIntent intent) throws SQLException {
        boolean inserted = sql.insert(
                tx, resource, token, intent.key().value(), intent.destination(), intent.payload(), intent.ordered());
        return inserted ? RecordOutcome.RECORDED : RecordOutcome.ALREADY_RECORDED;
    }

    /**
     * Reads one intent.
     *
     * @param key the intent's idempotency key
     * @return the intent recorded under {@code key}, or empty if there is none (never recorded, or purged)
     */
    public Optional<OutboxState> state(IdempotencyKey key) {
        Args.notNull(key, "key");
        return context
                .jdbc()
                .inTransaction(
                        "reading outbox intent '" + key + "'",
                        connection -> Jdbc.query(
                                connection,
                                "SELECT idem_key, destination, payload, status, resource, token, attempts, owner, fence,"
                                        + " next_attempt_at, last_error, delivered_at FROM "
                                        + sql.on(connection).tables.outbox()
                                        + " WHERE idem_key = ?",
                                row -> new OutboxState(
                                        new IdempotencyKey(row.getString("idem_key")),
                                        row.getString("destination"),
                                        row.getString("payload"),
                                        row.getString("status"),
                                        row.getString("resource"),
                                        row.getLong("token"),
                                        row.getInt("attempts"),
                                        row.getString("owner"),
                                        row.getLong("fence"),
                                        Jdbc.instant(row, "next_attempt_at"),
                                        row.getString("last_error"),
                                        Jdbc.instant(row, "delivered_at")),
                                key.value()))
                .stream()
                .findFirst();
    }

    /** @return how many intents are pending, sending, delivered and dead */
    public OutboxStats stats() {
        Map<String, Long> counts = new HashMap<>();
        context.jdbc()
                .inTransaction(
                        "counting outbox intents",
                        connection -> Jdbc.query(
                                connection,
                                "SELECT status, COUNT(*) FROM "
                                        + sql.on(connection).tables.outbox() + " GROUP BY status",
                                row -> counts.put(row.getString(1), row.getLong(2))));
        return new OutboxStats(
                counts.getOrDefault(OutboxSql.PENDING, 0L),
                counts.getOrDefault(OutboxSql.SENDING, 0L),
                counts.getOrDefault(OutboxSql.DELIVERED, 0L),
                counts.getOrDefault(OutboxSql.DEAD, 0L));
    }

    /**
     * Deletes intents delivered more than {@code olderThan} ago (database clock). Dead intents stay until
     * {@link #requeueDead requeued} or removed by an operator.
     *
     * <p>IMPORTANT: once a key is purged, recording it again sends it again. Keep delivered intents longer than any
     * leader could retry the same work (and know how long your receiver remembers its keys).
     *
     * @param olderThan how long ago an intent must have been delivered to go
     * @return how many intents were deleted
     * @throws IllegalArgumentException if {@code olderThan} is negative or longer than 100 years
     */
    public int purgeDelivered(Duration olderThan) {
        Args.notNull(olderThan, "olderThan");
        if (olderThan.isNegative() || olderThan.compareTo(Duration.ofDays(36_500)) > 0) {
            throw new IllegalArgumentException("olderThan must be 0 to 36500 days, was " + olderThan);
        }
        long millis = olderThan.toMillis();
        return context.jdbc().inTransaction("purging delivered outbox intents", connection -> {
            SqlDialect dialect = sql.on(connection);
            return Jdbc.update(
                    connection,
                    "DELETE FROM " + dialect.tables.outbox() + " WHERE status = '" + OutboxSql.DELIVERED
                            + "' AND delivered_at < " + dialect.nowPlusMillis(),
                    -millis);
        });
    }

    /**
     * Makes a dead intent pending again, with its attempts reset and due now (an operator's step once the cause is
     * fixed).
     *
     * @param key the intent's idempotency key
     * @return false if there is no dead intent with this key
     */
    public boolean requeueDead(IdempotencyKey key) {
        Args.notNull(key, "key");
        return context.jdbc().inTransaction("requeueing outbox intent '" + key + "'", connection -> {
            SqlDialect dialect = sql.on(connection);
            return Jdbc.oneRow(
                    Jdbc.update(
                            connection,
                            "UPDATE " + dialect.tables.outbox() + " SET status = '"
                                    + OutboxSql.PENDING + "', attempts = 0, next_attempt_at = " + dialect.now()
                                    + " WHERE idem_key = ? AND status = '" + OutboxSql.DEAD + "'",
                            key.value()),
                    "requeue");
        });
    }
}
