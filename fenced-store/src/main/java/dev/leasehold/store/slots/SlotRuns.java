package dev.leasehold.store.slots;

import dev.leasehold.store.CommitOutcomeUnknownException;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.SlotOutcome;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.StoreException;
import dev.leasehold.store.internal.Args;
import dev.leasehold.store.internal.Jdbc;
import dev.leasehold.store.internal.Retention;
import dev.leasehold.store.internal.SqlDialect;
import dev.leasehold.store.internal.StoreContext;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * One run per (job, time slot) across any number of replicas, with a recovery sweep, catch-up and retention.
 * Thread-safe: one instance may serve any number of threads (each call uses its own connection).
 *
 * <ul>
 *   <li>{@link #tryClaim}: an insert-if-absent on the primary key (job, slot). Of any number of concurrent calls for
 *       one slot exactly one wins; the others get {@code Optional.empty()} (no exception, on any database).</li>
 *   <li>{@link #sweep}: takes over running slots whose lease expired (database clock), raising their fence, so the
 *       slow original runner's {@link #complete} is rejected. Sweepers lock with {@code SKIP LOCKED}: two sweepers
 *       never take the same slot. At most {@link StoreConfig#sweepLimit()} slots per call.</li>
 *   <li>{@link #missingSlots}: the slots on the period grid that nobody claimed (a deploy gap), for catch-up: on
 *       the UTC grid since the epoch, or on the wall-clock grid of a time zone (local midnights for a daily job).</li>
 *   <li>{@link #purge}: deletes old done runs in bounded chunks.</li>
 *   <li>{@link #complete} is conditional on the fence. The result is stored per (job, slot), so running a slot again
 *       is idempotent: a second claim of a done slot loses.</li>
 * </ul>
 * Every decision (won, lost the race, taken over, late complete rejected, ...) is told to
 * {@link StoreConfig#listener()} after the call ended.
 *
 * <p>Failures. A {@link StoreException} whose {@link StoreException#retryable()} is true kept nothing: the same call
 * may be made again. IMPORTANT: in auto-commit mode {@link #tryClaim}, {@link #renew} and {@link #complete} commit
 * on their own as the server runs them; if the connection is lost after the statement was sent,
 * the call throws {@link CommitOutcomeUnknownException} (never retryable): it may have been committed. Do not simply
 * retry (a {@code tryClaim} that won, made again, loses to itself); read {@link #state} and carry on from that (the
 * slot is yours if its runner and fence are those of your claim, fence 1 for a {@code tryClaim}). {@link #purge} may
 * throw it too, and may simply be called again: it deletes what is left.
 *
 * <p>"Exactly once" is really at-least-once plus idempotence per slot: a slow runner may still be running beside the
 * sweeper; only one of them can complete. Make the lease longer than the p99.9 run time, or {@link #renew} it.
 *
 * <p>Why one file of more than 300 lines: one public API for a slot's whole life (claim, renew, complete, sweep, catch
 * up, purge), mostly Javadoc; the grid arithmetic is in {@code SlotGrid}, the SQL in the dialects.
 */
public final class SlotRuns {

    /** How many slots {@link #missingSlots} may examine in one call. */
    public static final int MAX_SLOTS_PER_SCAN = 100_000;

    private static final String RUNNING = "running";
    private static final String DONE = "done";

    private final StoreContext context;
    private final StoreConfig config;

    /**
     * Slot runs on {@code ds} with {@link StoreConfig#defaults()}.
     *
     * @param ds where the schema lives (see {@link FencedSchema})
     */
    public SlotRuns(DataSource ds) {
        this(ds, StoreConfig.defaults());
    }

    /**
     * Slot runs on {@code ds}.
     *
     * @param ds     where the schema lives (see {@link FencedSchema})
     * @param config table prefix, sweep limit, retries and the rest
     */
    public SlotRuns(DataSource ds, StoreConfig config) {
        this.context = new StoreContext(ds, config);
        this.config = config;
    }

    /**
     * Claims {@code slot} of {@code job} for {@code runner}; empty if someone already has (or had) it.
     *
     * <p>The slot is a key, taken exactly as given (millisecond precision): it is neither rounded nor checked against
     * a grid, since a claim knows no period. An off-grid instant (say 03:00:07 for a minutely job) is a slot of its
     * own: it does not fill the grid slot beside it (which {@link #missingSlots} still reports and another replica
     * can still win) and {@code missingSlots} never reports it. Compute slots from the grid, e.g. with
     * {@link #slotOf}.
     *
     * @param job    the job's name: not blank, at most 200 characters
     * @param slot   the slot, e.g. the minute {@code 03:00Z}
     * @param runner who claims: not blank, at most 200 characters
     * @param lease  how long the claim holds without a {@link #renew}: at least 1 ms, at most 7 days
     * @return the claim, or empty if the slot was already claimed
     */
    public Optional<SlotClaim> tryClaim(String job, Instant slot, String runner, Duration lease) {
        return context.events()
                .after(
                        () -> claimOne(job, slot, runner, lease),
                        claim -> listener ->
                                listener.slots(job, claim.isPresent() ? SlotOutcome.WON : SlotOutcome.LOST_RACE, 1),
                        listener -> listener.slots(job, SlotOutcome.ERROR, 1));
    }

    private Optional<SlotClaim> claimOne(String job, Instant slot, String runner, Duration lease) {
        Args.name(job, "job");
        Args.slot(slot, "slot");
        Args.name(runner, "runner");
        long leaseMillis = Args.leaseMillis(lease);
        boolean won = context.jdbc().withConnection("claiming slot " + slot + " of '" + job + "'", connection -> {
            SqlDialect sql = context.sql();
            String insert = sql.insertIfAbsent(
                    "INSERT INTO " + sql.tables.slotRuns()
                            + " (job, slot, runner, status, lease_until, fence, claimed_at) VALUES (?, ?, ?, '"
                            + RUNNING
                            + "', " + sql.nowPlusMillis() + ", 1, " + sql.now() + ")",
                    "job, slot");
            try {
                return Jdbc.oneRow(Jdbc.update(connection, insert, job, slot, runner, leaseMillis), "slot claim");
            } catch (SQLException e) {
                if (sql.lostInsertRace(e)) {
                    return false;
                }
                throw e;
            }
        });
        return won ? Optional.of(new SlotClaim(job, slot, runner, 1)) : Optional.empty();
    }

    /**
     * Takes over, for {@code runner}, running slots of {@code job} whose lease expired: at most
     * {@link StoreConfig#sweepLimit()} per call, oldest slot first (call again while it returns a full list).
     *
     * @param job    the job's name
     * @param runner who takes the slots over
     * @param lease  the new claims' lease: at least 1 ms, at most 7 days
     * @return the claims taken over, oldest slot first
     */
    public List<SlotClaim> sweep(String job, String runner, Duration lease) {
        return context.events()
                .after(
                        () -> sweepOnce(job, runner, lease),
                        taken -> listener -> {
                            if (!taken.isEmpty()) {
                                listener.slots(job, SlotOutcome.TAKEN_OVER, taken.size());
                            }
                        },
                        listener -> listener.slots(job, SlotOutcome.ERROR, 1));
    }

    private List<SlotClaim> sweepOnce(String job, String runner, Duration lease) {
        Args.name(job, "job");
        Args.name(runner, "runner");
        long leaseMillis = Args.leaseMillis(lease);
        return context
                .jdbc()
                .inTransactionRetrying(
                        "sweeping expired slots of '" + job + "'", context::skipLockedWait, tx -> context.sql()
                                .sweepSlots(tx, job, runner, leaseMillis, config.sweepLimit()))
                .stream()
                .map(row -> new SlotClaim(row.job(), row.slot(), row.runner(), row.fence()))
                .toList();
    }

    /**
     * The slots in {@code [from, to)} on the grid of {@code period} (multiples of it since the epoch) that were never
     * claimed, oldest first.
     *
     * @param job    the job's name
     * @param from   the start of the range, inclusive
     * @param to     the end of the range, exclusive
     * @param period the grid's step
     * @return the unclaimed slots, oldest first
     */
    public List<Instant> missingSlots(String job, Instant from, Instant to, Duration period) {
        Args.name(job, "job");
        Args.slot(from, "from");
        Args.slot(to, "to");
        Args.notNull(period, "period");
        if (period.isNegative() || period.isZero() || period.toNanos() % 1_000_000 != 0) {
            throw new IllegalArgumentException("period must be a positive whole number of milliseconds, was " + period);
        }
        long step = period.toMillis();
        if (from.isAfter(to)) {
            throw new IllegalArgumentException("from (" + from + ") must not be after to (" + to + ")");
        }
        for (Instant bound : List.of(from, to)) {
            if (Math.floorMod(bound.toEpochMilli(), step) != 0) {
                throw new IllegalArgumentException(bound + " is not on the grid of " + period + " (slots are "
                        + "multiples of the period since 1970-01-01T00:00Z)");
            }
        }
        long slots = (to.toEpochMilli() - from.toEpochMilli()) / step;
        if (slots > MAX_SLOTS_PER_SCAN) {
            throw new IllegalArgumentException("[" + from + ", " + to + ") holds " + slots + " slots of " + period
                    + "; scan at most " + MAX_SLOTS_PER_SCAN + " at a time");
        }
        Set<Instant> claimed = claimedIn(job, from, to);
        List<Instant> missing = new ArrayList<>();
        for (long at = from.toEpochMilli(); at < to.toEpochMilli(); at += step) {
            Instant slot = Instant.ofEpochMilli(at);
            if (!claimed.contains(slot)) {
                missing.add(slot);
            }
        }
        return missing;
    }

    /**
     * The slots in {@code [from, to)} on the wall-clock grid of {@code period} in {@code zone} that were never
     * claimed, oldest first: {@code 00:00, 00:00 + period, ...} of every local day, so a daily job's slots are the
     * local midnights (23 or 25 hours apart around a daylight-saving change) and an hourly job in +05:30 has its slots
     * at half past the UTC hour. A wall-clock time skipped when clocks go forward moves forward by the gap; one that
     * happens twice when they go back is one slot, at its earlier instant. {@code from} and {@code to} need not be
     * on the grid. With {@code ZoneOffset.UTC} the grid is that of {@link #missingSlots(String, Instant, Instant,
     * Duration)} for the same period.
     *
     * @param job    the job's name
     * @param from   the start of the range, inclusive
     * @param to     the end of the range, exclusive
     * @param period the grid's step
     * @param zone   the time zone whose wall clock the grid follows
     * @return the unclaimed slots, oldest first
     * @throws IllegalArgumentException if the period is under a minute or does not divide a day, {@code from} is
     *                                  after {@code to}, or the range holds more than {@link #MAX_SLOTS_PER_SCAN}
     */
    public List<Instant> missingSlots(String job, Instant from, Instant to, Duration period, ZoneId zone) {
        Args.name(job, "job");
        Args.slot(from, "from");
        Args.slot(to, "to");
        Args.notNull(zone, "zone");
        long step = SlotGrid.periodMillis(period);
        if (from.isAfter(to)) {
            throw new IllegalArgumentException("from (" + from + ") must not be after to (" + to + ")");
        }
        if ((to.toEpochMilli() - from.toEpochMilli()) / step > MAX_SLOTS_PER_SCAN) {
            throw new IllegalArgumentException("[" + from + ", " + to + ") holds more than " + MAX_SLOTS_PER_SCAN
                    + " slots of " + period + "; scan at most " + MAX_SLOTS_PER_SCAN + " at a time");
        }
        Set<Instant> claimed = claimedIn(job, from, to);
        List<Instant> missing = new ArrayList<>();
        for (Instant slot : SlotGrid.slots(from, to, step, zone)) {
            if (!claimed.contains(slot)) {
                missing.add(slot);
            }
        }
        return missing;
    }

    /**
     * The slot of the grid of {@code period} in {@code zone} (see {@link #missingSlots(String, Instant, Instant,
     * Duration, ZoneId)}) that {@code at} falls in: the latest slot at or before it. Use it to turn "now" into the
     * slot to {@link #tryClaim}.
     *
     * @param at     an instant, e.g. now
     * @param period the grid's step
     * @param zone   the time zone whose wall clock the grid follows
     * @return the slot {@code at} falls in
     */
    public static Instant slotOf(Instant at, Duration period, ZoneId zone) {
        Args.notNull(at, "at");
        Args.notNull(zone, "zone");
        return SlotGrid.slotOf(at, SlotGrid.periodMillis(period), zone);
    }

    /**
     * Deletes done slot runs whose slot is more than {@code olderThan} before now (database clock), in chunks of
     * {@link StoreConfig#purgeChunk()} rows, each its own short transaction. Running slots are never touched.
     *
     * <p>IMPORTANT: a purged slot is a slot never claimed again: {@link #missingSlots} reports it and
     * {@link #tryClaim} wins it. Keep {@code olderThan} longer than any range you catch up on.
     *
     * @param olderThan how far before now a slot must lie for its done run to go
     * @return how many slot runs were deleted
     */
    public long purge(Duration olderThan) {
        Args.olderThan(olderThan);
        String operation = "purging slot runs older than " + olderThan;
        Instant cutoff = Retention.cutoff(context, operation, olderThan);
        String table = context.sql().tables.slotRuns();
        int chunk = config.purgeChunk();
        return Retention.inChunks(
                context,
                operation,
                context.sql().chunkDelete(table, "job, slot", "status = '" + DONE + "' AND slot < ?", "slot", chunk),
                chunk,
                cutoff);
    }

    private Set<Instant> claimedIn(String job, Instant from, Instant to) {
        return new HashSet<>(context.jdbc()
                .withConnection(
                        "scanning slots of '" + job + "'",
                        connection -> Jdbc.query(
                                connection,
                                "SELECT slot FROM " + context.sql().tables.slotRuns()
                                        + " WHERE job = ? AND slot >= ? AND slot < ?",
                                row -> Jdbc.instant(row, "slot"),
                                job,
                                from,
                                to)));
    }

    /**
     * Extends the lease from now (database clock) if {@code claim} is still current.
     *
     * @param claim the claim {@link #tryClaim} or {@link #sweep} returned
     * @param lease the new lease, from now: at least 1 ms, at most 7 days
     * @return false if the claim was swept to another runner (or the slot is done)
     */
    public boolean renew(SlotClaim claim, Duration lease) {
        return context.events()
                .after(
                        () -> renewOne(claim, lease),
                        renewed -> listener -> {
                            if (!renewed) {
                                listener.slots(claim.job(), SlotOutcome.RENEW_REJECTED, 1);
                            }
                        },
                        listener -> listener.slots(claim.job(), SlotOutcome.ERROR, 1));
    }

    private boolean renewOne(SlotClaim claim, Duration lease) {
        Args.notNull(claim, "claim");
        long leaseMillis = Args.leaseMillis(lease);
        return context.jdbc()
                .withConnection("renewing slot " + claim.slot() + " of '" + claim.job() + "'", connection -> {
                    SqlDialect sql = context.sql();
                    return Jdbc.oneRow(
                            Jdbc.update(
                                    connection,
                                    "UPDATE " + sql.tables.slotRuns() + " SET lease_until = "
                                            + sql.nowPlusMillis()
                                            + " WHERE job = ? AND slot = ? AND fence = ? AND status = '" + RUNNING
                                            + "'",
                                    leaseMillis,
                                    claim.job(),
                                    claim.slot(),
                                    claim.fence()),
                            "slot renew");
                });
    }

    /**
     * Records the slot's result, if {@code claim} is still current.
     *
     * @param claim  the claim {@link #tryClaim} or {@link #sweep} returned
     * @param result what to record as the slot's result
     * @return false if the claim is stale (the slot was swept to another runner, or is already done)
     */
    public boolean complete(SlotClaim claim, String result) {
        return context.events()
                .after(
                        () -> completeOne(claim, result),
                        done -> listener -> listener.slots(
                                claim.job(), done ? SlotOutcome.COMPLETED : SlotOutcome.LATE_COMPLETE_REJECTED, 1),
                        listener -> listener.slots(claim.job(), SlotOutcome.ERROR, 1));
    }

    private boolean completeOne(SlotClaim claim, String result) {
        Args.notNull(claim, "claim");
        Args.notNull(result, "result");
        return context.jdbc()
                .withConnection("completing slot " + claim.slot() + " of '" + claim.job() + "'", connection -> {
                    SqlDialect sql = context.sql();
                    return Jdbc.oneRow(
                            Jdbc.update(
                                    connection,
                                    "UPDATE " + sql.tables.slotRuns() + " SET status = '"
                                            + DONE + "', result = ?, completed_at = " + sql.now()
                                            + " WHERE job = ? AND slot = ?"
                                            + " AND fence = ? AND status = '" + RUNNING + "'",
                                    result,
                                    claim.job(),
                                    claim.slot(),
                                    claim.fence()),
                            "slot complete");
                });
    }

    /**
     * Reads one slot run.
     *
     * @param job  the job's name
     * @param slot the slot
     * @return the slot run as stored, or empty if the slot was never claimed (or was purged)
     */
    public Optional<SlotState> state(String job, Instant slot) {
        Args.name(job, "job");
        Args.slot(slot, "slot");
        return context
                .jdbc()
                .withConnection(
                        "reading slot " + slot + " of '" + job + "'",
                        connection -> Jdbc.query(
                                connection,
                                "SELECT job, slot, runner, status, fence, result FROM "
                                        + context.sql().tables.slotRuns() + " WHERE job = ? AND slot = ?",
                                row -> new SlotState(
                                        row.getString("job"),
                                        Jdbc.instant(row, "slot"),
                                        row.getString("runner"),
                                        row.getString("status"),
                                        row.getLong("fence"),
                                        row.getString("result")),
                                job,
                                slot))
                .stream()
                .findFirst();
    }
}
