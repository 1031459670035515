package dev.leasehold.store.lease;

import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.StoreException;
import dev.leasehold.store.internal.LeaseSql;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lock on the database the work already uses, with a fencing token: one row per lock name in the lease table
 * ({@code leasehold_leases}, schema version 6, shared with {@link LeaseElection}: a lock and an election must not use
 * one name), whose generation is the token. No ZooKeeper.
 *
 * <p>The algorithm, every call one conditional statement judged by its update count, "now" always the database's
 * clock (a caller's clock never decides expiry):
 * <ol>
 *   <li><b>tryLock</b>: {@code generation + 1}, this hold as holder, {@code lease_until = now + ttl}, only if the
 *       lock is free ({@code lease_until <= now}: never taken, unlocked, or expired). 1 row: the caller holds it, with
 *       the new generation as its token. The first lock of a name in this instance may need an INSERT more (the row
 *       of a name never used, generation 1).</li>
 *   <li><b>renew</b>: {@code lease_until = now + ttl} only if this hold (holder and generation) is still current and
 *       unexpired: a renew never revives an expired hold.</li>
 *   <li><b>unlock</b>: {@code lease_until = now} under the same condition: the next {@code tryLock} succeeds at
 *       once. {@link #release(Hold, Duration)} ends it later instead (ShedLock's {@code lockAtLeastFor}).</li>
 * </ol>
 * Tokens grow by one with every acquisition of a name, whoever acquires it: across holders, after an expiry and after
 * an unlock. The row is never deleted: its generation is the history of the tokens.
 *
 * <p>Each hold is stored under the given holder id plus a random suffix of its own ({@link Hold#holdId()}), so two
 * processes configured with one holder id never renew or unlock each other's hold; {@link Hold#holder()} is the
 * given id.
 *
 * <p>IMPORTANT: a time-based lock alone is not mutual exclusion. A holder paused past its ttl still believes it holds
 * the lock while another holds it with a higher token. Fence every write with {@link Hold#token()} at the resource
 * ({@code FenceGate}). Each call runs on a connection of its own from the data source, committed before it returns:
 * it never joins a transaction of the caller (pass the pool itself, not a data source that hands out the caller's
 * transactional connection, such as Spring's {@code TransactionAwareDataSourceProxy}). A hold is only as durable as
 * the database: see {@link LeaseElection} on asynchronous standbys (a WARN is logged once per server if at risk).
 *
 * <p>Thread-safety: thread-safe; one instance can serve any number of names, holders and threads. Not reentrant: a
 * second {@code tryLock} of a held name fails whoever asks.
 */
public final class LeaseLock {

    /** The longest ttl (and keep time of a release) accepted. */
    public static final Duration MAX_TTL = Duration.ofDays(365);

    private static final Logger log = LoggerFactory.getLogger(LeaseLock.class);

    /** Beyond this many names, the cache of rows known to exist starts again (it only saves an INSERT's try). */
    private static final int KNOWN_ROWS_LIMIT = 10_000;

    private final LeaseJdbc jdbc;
    private final int timeoutSeconds;
    private final String table;
    private final Set<String> knownRows = ConcurrentHashMap.newKeySet();

    /**
     * One hold of a lock: its token and until when it holds by the database's clock.
     *
     * <p>Immutable and thread-safe; a snapshot: by the time it is read the hold may have expired and been taken.
     *
     * @param token  the generation of this hold: the fencing token, higher than every earlier hold's of this name
     * @param name   the lock's name
     * @param holder the holder id given to {@link #tryLock}
     * @param until  when the hold ends unless renewed, as acquired (an instant of the database's clock: compare it with
     *               the database's instants, not with this machine's clock; a renew does not change this record)
     * @param holdId the holder as stored in the lease row: {@code holder} (cut to 183 characters if longer) plus
     *               {@code #} and 16 random hex digits, unique to this hold
     */
    public record Hold(long token, String name, String holder, Instant until, String holdId) {

        /**
         * Checks the components.
         *
         * @param token  the generation of this hold
         * @param name   the lock's name
         * @param holder the holder id given to {@link #tryLock}
         * @param until  when the hold ends unless renewed (database clock)
         * @param holdId the holder as stored in the lease row
         * @throws IllegalArgumentException if a component is null or the token is not positive
         */
        public Hold {
            if (token < 1 || name == null || holder == null || until == null || holdId == null) {
                throw new IllegalArgumentException("a hold needs a positive token, a name, a holder, an until and a"
                        + " holdId, was token " + token + ", name " + name + ", holder " + holder + ", until " + until
                        + ", holdId " + holdId);
            }
        }

        /**
         * A hold made by hand, with a hold id of its own: it matches no lock row, so {@link #renew} and {@link #unlock}
         * of it return false.
         *
         * @param token  the token
         * @param name   the lock's name
         * @param holder the holder id
         * @param until  the end of the hold
         */
        public Hold(long token, String name, String holder, Instant until) {
            this(token, name, holder, until, holder == null ? null : HolderIds.unique(holder));
        }
    }

    /**
     * Locks with {@link StoreConfig#defaults()} (tables {@code leasehold_*}, the dialect detected).
     *
     * @param dataSource where the lease table is; any pool (auto-commit on or off)
     * @throws IllegalArgumentException if it is null
     */
    public LeaseLock(DataSource dataSource) {
        this(dataSource, StoreConfig.defaults());
    }

    /**
     * Locks with the table prefix and dialect of {@code config}; each statement may wait {@code config.lockTimeout()}
     * (whole seconds, at least 1) for the row.
     *
     * @param dataSource where the lease table is; any pool (auto-commit on or off)
     * @param config     the table prefix, the lock timeout and, if forced, the dialect
     * @throws IllegalArgumentException if an argument is null
     */
    public LeaseLock(DataSource dataSource, StoreConfig config) {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource must not be null");
        }
        if (config == null) {
            throw new IllegalArgumentException(
                    "config must not be null; StoreConfig.defaults() for the default tables");
        }
        this.jdbc = new LeaseJdbc(dataSource, config, log);
        this.timeoutSeconds = (int) Math.max(1, (config.lockTimeout().toMillis() + 999) / 1000);
        this.table = config.tablePrefix() + "leases";
    }

    /**
     * Takes the lock {@code name} for {@code holder} if it is free (never taken, unlocked, or expired by the
     * database's clock): one statement.
     *
     * @param name   the lock's name: non-blank, at most 200 characters, no blanks at either end, no control characters
     * @param holder who holds it (for logs and {@link Hold#holder()}; same rules as {@code name}); two holds with one
     *               holder id are still two holds
     * @param ttl    how long the hold lasts unless renewed: at least 1 ms, at most {@link #MAX_TTL}, counted in whole milliseconds (a fraction is dropped)
     * @return the hold, or empty if someone holds the lock
     * @throws IllegalArgumentException if an argument is null or breaks the rules above; nothing is written then
     * @throws StoreException           if the database fails (a missing table says to install schema version 6)
     */
    public Optional<Hold> tryLock(String name, String holder, Duration ttl) {
        Names.check(name, "name");
        Names.check(holder, "holder");
        long ttlMillis = millis(ttl, "ttl", 1);
        String holdId = HolderIds.unique(holder);
        jdbc.checkDurabilityOnce("lease lock");
        return jdbc.run("locking '" + name + "' for '" + holder + "'", (sql, c) -> {
            Optional<LeaseSql.Taken> taken = sql.takeHold(c, name, holdId, ttlMillis, timeoutSeconds);
            if (taken.isPresent()) {
                known(name);
                return taken.map(t -> new Hold(t.generation(), name, holder, t.leaseUntil(), holdId));
            }
            if (knownRows.contains(name)) {
                return Optional.empty();
            }
            boolean created = sql.create(c, name, holdId, ttlMillis, timeoutSeconds);
            known(name);
            if (!created) {
                return Optional.empty();
            }
            // The hold was made, even if a ttl shorter than the round trip has ended by now (then renew and unlock
            // of it return false, as for any expired hold); empty only if another took the row meanwhile.
            return sql.heldUntil(c, name, holdId, 1, timeoutSeconds)
                    .map(until -> new Hold(1, name, holder, until, holdId));
        });
    }

    /**
     * Extends the hold to now + {@code ttl} (database clock), if it is still current: one statement. A shorter ttl than
     * what remains shortens it. {@code hold.until()} keeps the end as acquired.
     *
     * @param hold the hold, from {@link #tryLock}
     * @param ttl  at least 1 ms, at most {@link #MAX_TTL}, counted in whole milliseconds (a fraction is dropped)
     * @return true if renewed; false if the hold is gone (it expired, whether or not another took the lock since, or
     *     it was unlocked)
     * @throws IllegalArgumentException if an argument is null or out of range; nothing is written then
     * @throws StoreException           if the database fails
     */
    public boolean renew(Hold hold, Duration ttl) {
        checkHold(hold);
        long ttlMillis = millis(ttl, "ttl", 1);
        return jdbc.run(
                "renewing " + describe(hold),
                (sql, c) -> sql.renew(c, hold.name(), hold.holdId(), hold.token(), ttlMillis, timeoutSeconds));
    }

    /**
     * Ends the hold now, if it is still current: one statement; the next {@link #tryLock} of the name succeeds at
     * once, with a higher token.
     *
     * @param hold the hold, from {@link #tryLock}
     * @return true if this ended the hold; false if it was gone already (expired, unlocked before, or taken)
     * @throws IllegalArgumentException if {@code hold} is null; nothing is written then
     * @throws StoreException           if the database fails
     */
    public boolean unlock(Hold hold) {
        checkHold(hold);
        return jdbc.run(
                "unlocking " + describe(hold),
                (sql, c) -> sql.release(c, hold.name(), hold.holdId(), hold.token(), timeoutSeconds));
    }

    /**
     * Ends the hold {@code keepFor} from now (database clock), or at its current end if that is sooner, if it is still
     * current: one statement. Until then nobody else can take the lock; the hold stays current, so a later
     * {@link #unlock} ends it at once. This is ShedLock's unlock with {@code lockAtLeastFor}: pass what remains of it
     * ({@code lockAtLeastFor} minus the time since the lock was taken, measured on the caller's monotonic clock).
     *
     * @param hold    the hold, from {@link #tryLock}
     * @param keepFor 0 (the same as {@link #unlock}) to {@link #MAX_TTL}, counted in whole milliseconds (a fraction is dropped)
     * @return true if this hold was current and now ends then; false if it was gone already
     * @throws IllegalArgumentException if an argument is null or out of range; nothing is written then
     * @throws StoreException           if the database fails
     */
    public boolean release(Hold hold, Duration keepFor) {
        checkHold(hold);
        long keepMillis = millis(keepFor, "keepFor", 0);
        return jdbc.run(
                "releasing " + describe(hold) + " in " + keepMillis + " ms",
                (sql, c) -> sql.releaseAfter(c, hold.name(), hold.holdId(), hold.token(), keepMillis, timeoutSeconds));
    }

    private void known(String name) {
        if (knownRows.size() >= KNOWN_ROWS_LIMIT) {
            knownRows.clear();
        }
        knownRows.add(name);
    }

    private static void checkHold(Hold hold) {
        if (hold == null) {
            throw new IllegalArgumentException("hold must not be null; pass the hold tryLock returned");
        }
    }

    private static String describe(Hold hold) {
        return "lock '" + hold.name() + "' (holder '" + hold.holder() + "', token " + hold.token() + ")";
    }

    private static long millis(Duration value, String what, long least) {
        if (value == null || value.compareTo(Duration.ofMillis(least)) < 0 || value.compareTo(MAX_TTL) > 0) {
            throw new IllegalArgumentException(
                    what + " must be from " + least + " ms to " + MAX_TTL + ", was " + value);
        }
        return value.toMillis();
    }

    @Override
    public String toString() {
        return "LeaseLock[" + table + "]";
    }
}
