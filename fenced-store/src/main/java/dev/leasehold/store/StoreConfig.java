package dev.leasehold.store;

import java.time.Duration;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How the fenced store names its tables, which SQL dialect it speaks, the bounds of its batch and retention
 * operations, how long its transactions wait for a lock, and how long one may sit idle. Start from {@link #defaults()} and change what you need
 * with the withers.
 *
 * <p>Immutable and thread-safe; every wither returns a new, validated instance.
 *
 * @param tablePrefix prefixed to every table name; lower-case letters, digits and underscores, starting with a
 *                    letter, at most 30 characters (checked: nothing can be injected through it)
 * @param database    the dialect to speak, or {@code null} to detect it from the connection's metadata
 * @param maxAttempts how many claims a batch gets: once its attempt number {@code maxAttempts} fails (or its lease
 *                    expires), it is {@code failed} and never claimed again; 1 to 1,000, default 5
 * @param purgeChunk  how many rows one statement of a purge deletes ({@link dev.leasehold.store.claims.BatchClaims#purgeFinished},
 *                    {@link dev.leasehold.store.slots.SlotRuns#purge}), each in its own short transaction; 1 to 100,000, default 1,000
 * @param sweepLimit  how many expired slots one {@link dev.leasehold.store.slots.SlotRuns#sweep} takes over at most; 1 to 100,000,
 *                    default 100
 * @param lockTimeout how long any statement of the store's own transactions may wait for a lock another transaction
 *                    holds (a paused old leader inside its transaction, say); then it fails with a
 *                    {@link StoreException} that says so and is {@link StoreException#retryable() retryable}.
 *                    Applied per transaction ({@code SET LOCAL lock_timeout} on PostgreSQL, the session's
 *                    {@code LOCK_TIMEOUT} on H2, set and restored; {@code innodb_lock_wait_timeout} on MariaDB and
 *                    MySQL, set and restored, rounded up to whole seconds). On PostgreSQL it bounds every lock a
 *                    statement waits for, the brief relation extension lock too (one session at a time adds a page
 *                    to a table): a few milliseconds can end on that under load. Whole milliseconds, from 1 ms to 1 hour;
 *                    {@link #DEFAULT_LOCK_TIMEOUT} unless set
 * @param listener    told what each call decided (fence writes, claims, slots), for metrics; never able to break the
 *                    store (see {@link StoreListener}); {@link StoreListener#NONE} unless set
 * @param historyLimit how many changes of its mark {@link FenceGate#history} keeps per resource: recording a new one
 *                    deletes the resource's oldest beyond this many (re-bases are kept in their own audit table and
 *                    never deleted); 1 to 1,000,000, default 1,000
 * @param idleInTransactionTimeout how long one of the store's own transactions may sit idle on the server, the
 *                    database waiting for the client's next statement, before the database ends it: the session is
 *                    terminated, the transaction rolled back and its locks released. This is what frees the fence's
 *                    mark row when the process that holds it is frozen inside a gate transaction (a GC pause, a
 *                    {@code kill -STOP}, a VM migration): without it, a new leader's {@link FenceGate#advance} fails
 *                    with lock timeouts for as long as the pause lasts. IMPORTANT: your work inside a gate transaction
 *                    ({@link FenceGate#write}, {@link FenceGate#call}) counts as idle whenever it is not running a
 *                    statement: a remote call (HTTP, a queue) between two statements, or before the commit, must
 *                    finish within this bound, or the gate's write fails with a retryable {@link StoreException} and
 *                    nothing of it is kept. A statement that runs long is not idle. Applied per transaction
 *                    ({@code SET LOCAL idle_in_transaction_session_timeout} on PostgreSQL, in the same round trip as
 *                    the first statement; through PgBouncer in transaction mode too; on MariaDB
 *                    {@code idle_transaction_timeout} in whole seconds, rounded up, set in the statement before the
 *                    transaction and put back in the one after it). Not applied on H2 (embedded: a frozen process
 *                    freezes its database with it) nor on MySQL (no such setting for transactions).
 *                    {@link Duration#ZERO} leaves the server's own setting ({@code off} unless an administrator set
 *                    one); otherwise whole milliseconds from 1 ms to 24 hours; {@link #DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT}
 *                    unless set
 */
public record StoreConfig(
        String tablePrefix,
        Database database,
        int maxAttempts,
        int purgeChunk,
        int sweepLimit,
        Duration lockTimeout,
        StoreListener listener,
        int historyLimit,
        Duration idleInTransactionTimeout) {

    /** The table prefix of {@link #defaults()}. */
    public static final String DEFAULT_PREFIX = "leasehold_";
    /** The attempts per batch of {@link #defaults()}. */
    public static final int DEFAULT_MAX_ATTEMPTS = 5;
    /** The rows per purge statement of {@link #defaults()}. */
    public static final int DEFAULT_PURGE_CHUNK = 1_000;
    /** The slots per sweep of {@link #defaults()}. */
    public static final int DEFAULT_SWEEP_LIMIT = 100;
    /** The history kept per resource by {@link #defaults()}. */
    public static final int DEFAULT_HISTORY_LIMIT = 1_000;
    /** Long enough for any healthy transaction of the store, short enough that a stuck one is noticed. */
    public static final Duration DEFAULT_LOCK_TIMEOUT = Duration.ofSeconds(5);
    /**
     * Long enough for healthy work with a remote call or two inside a gate transaction, short enough that a frozen
     * holder's locks are freed within about one ZooKeeper session of a new leader's election.
     */
    public static final Duration DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT = Duration.ofSeconds(30);

    private static final Duration MAX_LOCK_TIMEOUT = Duration.ofHours(1);
    private static final Duration MAX_IDLE_IN_TRANSACTION_TIMEOUT = Duration.ofHours(24);
    private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9_]{0,29}");

    /**
     * Checks the components.
     *
     * @param tablePrefix prefixed to every table name
     * @param database    the dialect, or null to detect it
     * @param maxAttempts claims per batch
     * @param purgeChunk  rows per purge statement
     * @param sweepLimit  slots per sweep
     * @param lockTimeout the longest lock wait
     * @param listener    told what each call decided; {@link StoreListener#NONE} for none
     * @param historyLimit mark changes kept per resource
     * @param idleInTransactionTimeout the longest a transaction of the store may sit idle; zero: the server's own
     * @throws IllegalArgumentException if a component is out of the range given above
     */
    public StoreConfig {
        if (tablePrefix == null || !PREFIX.matcher(tablePrefix).matches()) {
            throw new IllegalArgumentException("tablePrefix must match " + PREFIX.pattern()
                    + " (lower-case letters, digits, underscores; a letter first; at most 30 characters), was "
                    + (tablePrefix == null ? "null" : "'" + tablePrefix + "'"));
        }
        within(maxAttempts, 1, 1_000, "maxAttempts");
        within(purgeChunk, 1, 100_000, "purgeChunk");
        within(sweepLimit, 1, 100_000, "sweepLimit");
        if (lockTimeout == null
                || lockTimeout.compareTo(Duration.ofMillis(1)) < 0
                || lockTimeout.compareTo(MAX_LOCK_TIMEOUT) > 0
                || lockTimeout.toNanos() % 1_000_000 != 0) {
            throw new IllegalArgumentException(
                    "lockTimeout must be whole milliseconds from 1 ms to " + MAX_LOCK_TIMEOUT + ", was " + lockTimeout);
        }
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null; use StoreListener.NONE for none");
        }
        within(historyLimit, 1, 1_000_000, "historyLimit");
        if (idleInTransactionTimeout == null
                || idleInTransactionTimeout.isNegative()
                || idleInTransactionTimeout.compareTo(MAX_IDLE_IN_TRANSACTION_TIMEOUT) > 0
                || idleInTransactionTimeout.toNanos() % 1_000_000 != 0) {
            throw new IllegalArgumentException("idleInTransactionTimeout must be whole milliseconds from 1 ms to "
                    + MAX_IDLE_IN_TRANSACTION_TIMEOUT + ", or Duration.ZERO to leave the server's own setting, was "
                    + idleInTransactionTimeout);
        }
    }

    /**
     * Tables named {@code leasehold_*}, the dialect detected, 5 attempts, chunks of 1,000, sweeps of 100, a lock
     * timeout of {@link #DEFAULT_LOCK_TIMEOUT}, no listener, a history of 1,000 marks per resource, an idle-in-transaction
     * timeout of {@link #DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT}.
     *
     * @return the default configuration
     */
    public static StoreConfig defaults() {
        return new StoreConfig(
                DEFAULT_PREFIX,
                null,
                DEFAULT_MAX_ATTEMPTS,
                DEFAULT_PURGE_CHUNK,
                DEFAULT_SWEEP_LIMIT,
                DEFAULT_LOCK_TIMEOUT,
                StoreListener.NONE,
                DEFAULT_HISTORY_LIMIT,
                DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT);
    }

    /**
     * @param prefix the new table prefix (see {@link #tablePrefix()})
     * @return a copy with that prefix
     * @throws IllegalArgumentException if it is not a valid prefix
     */
    public StoreConfig withTablePrefix(String prefix) {
        return new StoreConfig(
                prefix,
                database,
                maxAttempts,
                purgeChunk,
                sweepLimit,
                lockTimeout,
                listener,
                historyLimit,
                idleInTransactionTimeout);
    }

    /**
     * @param database the dialect to speak instead of detecting it
     * @return a copy that speaks it
     * @throws IllegalArgumentException if it is null
     */
    public StoreConfig withDatabase(Database database) {
        if (database == null) {
            throw new IllegalArgumentException("database must not be null; use defaults() to detect it");
        }
        return new StoreConfig(
                tablePrefix,
                database,
                maxAttempts,
                purgeChunk,
                sweepLimit,
                lockTimeout,
                listener,
                historyLimit,
                idleInTransactionTimeout);
    }

    /**
     * @param maxAttempts the new number of claims per batch (see {@link #maxAttempts()})
     * @return a copy with that number
     * @throws IllegalArgumentException if it is out of range
     */
    public StoreConfig withMaxAttempts(int maxAttempts) {
        return new StoreConfig(
                tablePrefix,
                database,
                maxAttempts,
                purgeChunk,
                sweepLimit,
                lockTimeout,
                listener,
                historyLimit,
                idleInTransactionTimeout);
    }

    /**
     * @param purgeChunk the new rows per purge statement (see {@link #purgeChunk()})
     * @return a copy with that chunk
     * @throws IllegalArgumentException if it is out of range
     */
    public StoreConfig withPurgeChunk(int purgeChunk) {
        return new StoreConfig(
                tablePrefix,
                database,
                maxAttempts,
                purgeChunk,
                sweepLimit,
                lockTimeout,
                listener,
                historyLimit,
                idleInTransactionTimeout);
    }

    /**
     * @param sweepLimit the new slots per sweep (see {@link #sweepLimit()})
     * @return a copy with that limit
     * @throws IllegalArgumentException if it is out of range
     */
    public StoreConfig withSweepLimit(int sweepLimit) {
        return new StoreConfig(
                tablePrefix,
                database,
                maxAttempts,
                purgeChunk,
                sweepLimit,
                lockTimeout,
                listener,
                historyLimit,
                idleInTransactionTimeout);
    }

    /**
     * @param lockTimeout the new lock timeout (see {@link #lockTimeout()})
     * @return a copy with that timeout
     * @throws IllegalArgumentException if it is out of range
     */
    public StoreConfig withLockTimeout(Duration lockTimeout) {
        return new StoreConfig(
                tablePrefix,
                database,
                maxAttempts,
                purgeChunk,
                sweepLimit,
                lockTimeout,
                listener,
                historyLimit,
                idleInTransactionTimeout);
    }

    /**
     * See {@link #listener()}.
     *
     * @param listener the new listener; {@link StoreListener#NONE} for none
     * @return a copy with that listener
     * @throws IllegalArgumentException if it is null
     */
    public StoreConfig withListener(StoreListener listener) {
        return new StoreConfig(
                tablePrefix,
                database,
                maxAttempts,
                purgeChunk,
                sweepLimit,
                lockTimeout,
                listener,
                historyLimit,
                idleInTransactionTimeout);
    }

    /**
     * See {@link #historyLimit()}.
     *
     * @param historyLimit the new number of mark changes kept per resource
     * @return a copy with that limit
     * @throws IllegalArgumentException if it is out of range
     */
    public StoreConfig withHistoryLimit(int historyLimit) {
        return new StoreConfig(
                tablePrefix,
                database,
                maxAttempts,
                purgeChunk,
                sweepLimit,
                lockTimeout,
                listener,
                historyLimit,
                idleInTransactionTimeout);
    }

    /**
     * See {@link #idleInTransactionTimeout()}.
     *
     * @param idleInTransactionTimeout the longest a transaction of the store may sit idle on the server;
     *                                 {@link Duration#ZERO} to leave the server's own setting
     * @return a copy with that timeout
     * @throws IllegalArgumentException if it is null, negative, above 24 hours or not whole milliseconds
     */
    public StoreConfig withIdleInTransactionTimeout(Duration idleInTransactionTimeout) {
        return new StoreConfig(
                tablePrefix,
                database,
                maxAttempts,
                purgeChunk,
                sweepLimit,
                lockTimeout,
                listener,
                historyLimit,
                idleInTransactionTimeout);
    }

    /** @return the dialect set with {@link #withDatabase}, or empty if it is detected from the connection */
    public Optional<Database> forcedDatabase() {
        return Optional.ofNullable(database);
    }

    private static void within(int value, int min, int max, String name) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", was " + value);
        }
    }
}
