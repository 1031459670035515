package dev.leasehold.store;

import dev.leasehold.store.internal.Args;
import dev.leasehold.store.internal.CallersCheck;
import dev.leasehold.store.internal.FenceHistory;
import dev.leasehold.store.internal.Jdbc;
import dev.leasehold.store.internal.MarkCheck;
import dev.leasehold.store.internal.PassedTokens;
import dev.leasehold.store.internal.SqlDialect;
import dev.leasehold.store.internal.SqlStates;
import dev.leasehold.store.internal.StoreContext;
import dev.leasehold.store.internal.TxDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fence in front of a resource: a write is kept only if its token is at least the highest token the resource
 * has seen, checked in the same transaction as the write.
 *
 * <p>One transaction per write (for writes made in a transaction of YOURS, a Spring, JPA, jOOQ or plain JDBC one,
 * {@link #check(Connection, String, long)} runs the same check inside it; see docs/your-transaction.md):
 * <ol>
 *   <li>the check, on the resource's mark row. On PostgreSQL it first takes the resource's <b>queue lock</b>, a
 *       transaction-level advisory lock ({@code pg_advisory_xact_lock_shared} before the shared check,
 *       {@code pg_advisory_xact_lock} before the exclusive one; the key is in docs/store.md), in the same round trip as
 *       the check and as a statement of its own, so that the mark is read after the lock was granted. A token this
 *       gate saw pass and commit for the resource before (a
 *       leader's writes after its {@link #advance}) takes the <b>shared</b> check: {@code SELECT 1 FROM fence WHERE
 *       resource = :r AND token = :t FOR SHARE} ({@code LOCK IN SHARE MODE} on MariaDB and MySQL). One row: the mark
 *       is the token and is share-locked until commit, so the threads of one leader writing through one resource do
 *       not wait for one another. No row: the mark is read; higher, the write is refused at once; else (a re-base)
 *       the exclusive check follows. Any other token (a new
 *       leader's advance, a first use, a higher token) takes the <b>exclusive</b> check: on PostgreSQL
 *       {@code INSERT ... ON CONFLICT (resource) DO UPDATE SET token = :t WHERE token <= :t}; on H2, MariaDB and MySQL
 *       {@code UPDATE fence SET token = :t WHERE resource = :r AND token <= :t}, with an insert-if-absent on a
 *       resource's first use. One row: the token is current (equal tokens pass) and the mark is now locked
 *       exclusively until commit. H2 has no shared row lock: there every check is the exclusive one, and writers of
 *       one resource take turns;</li>
 *   <li>the caller's work runs in the same transaction, on a connection it cannot commit, roll back, close or
 *       reconfigure ({@link FencedWork});</li>
 *   <li>commit. A lower token rolls everything back and throws {@link StaleTokenException} (only once a higher mark
 *       was actually read), before the work ran; anything the work throws, checked or not, rolls everything back and
 *       is rethrown unchanged (an {@link SQLException} as a {@link StoreException}).</li>
 * </ol>
 *
 * <p><b>Why the guarantee holds.</b> It has two halves, and both follow from three facts: (a) every check holds a
 * lock on the mark row from the check to the commit (shared or exclusive); (b) the mark changes only under the
 * exclusive lock (an advance, a raising write, a re-base: each an UPDATE of the row), which no other transaction can
 * hold beside any lock on the row; (c) at READ COMMITTED a locking read or UPDATE that had to wait reads the newest
 * committed mark once it holds the lock, not what it saw before waiting (and on PostgreSQL the mark is read by a
 * statement that starts after the queue lock was granted). The queue lock adds nothing to safety: it only decides
 * who gets the row lock next.
 * <ul>
 *   <li><i>A write whose token is below the mark at its commit is never kept.</i> A write reaches its commit only
 *       after a check that, holding the lock (c), read mark = t (shared) or mark &lt;= t and set it to t
 *       (exclusive). From then until its commit nobody can change the mark (a, b). So at its commit the mark is its
 *       token.</li>
 *   <li><i>{@link #advance} returns only once no write with a lower token can still commit.</i> The advance's UPDATE
 *       is granted only once no other transaction holds the row in either mode (b), so every lower-token write that
 *       had passed its check has committed or rolled back by then; the advance then commits the new mark and only
 *       after that returns. A lower-token write whose check comes later, or waited for the advance, reads the new
 *       mark (c): the shared check finds no row and the mark it then reads is higher, the exclusive check matches
 *       none, and the write is refused before its work runs. A write that holds no lock on the row cannot commit
 *       through the gate at all.</li>
 *   <li><i>The advance gets through within about one writer's transaction, however many writers keep coming</i>
 *       (liveness, issue 41). On PostgreSQL every check takes the queue lock before it touches the row, and
 *       PostgreSQL's heavyweight locks queue: a request waits behind every earlier request it conflicts with, granted
 *       or still waiting. So the advance's exclusive request waits only for the checks that came before it, each of
 *       which ends with its transaction; a writer that comes after it waits behind it, then reads the new mark and is
 *       refused. Once the advance holds the queue lock nobody else holds it, and every holder of a row lock on the mark
 *       holds the queue lock first, so its row lock is granted at once. (Without the queue, a {@code FOR SHARE} that
 *       finds only share lockers is granted at once, even while an UPDATE waits: a leader's threads writing without
 *       a gap kept a new leader's advance waiting for as long as they wrote.) On MariaDB and MySQL InnoDB's row lock
 *       queues the same way (a new shared request waits behind a waiting exclusive one), so no queue lock is
 *       needed. H2 shares nothing and queues nothing: a released row goes to the first waiter to retry, so an advance
 *       may lose a few hand-overs to writers that came after it; it is never starved for long, and never unsafe.</li>
 * </ul>
 * Which check a write tries first depends only on what this gate remembers, never on correctness: a shared check
 * that finds another mark falls back to reading it (stale if higher) and to the exclusive check. The protocol, with
 * several writers of one token beside a raise, is model-checked in {@code model/leasehold.pml} (the
 * {@code GATE_LOCKS} block), where two broken variants are refuted: a shared check that keeps what it read before
 * waiting for the lock, and a raise that does not wait for the shared holders (what PostgreSQL's {@code FOR KEY
 * SHARE} would be: an UPDATE of the token, a non-key column, does not conflict with it).
 *
 * <p><b>Isolation contract.</b> The gate's transactions, and so your work inside them, run at READ COMMITTED
 * whatever the pool or the database default says (PostgreSQL: {@code SET TRANSACTION ISOLATION LEVEL READ
 * COMMITTED} first in the transaction; H2: set on the connection and restored before it goes back to the pool;
 * MariaDB and MySQL: one SET before the transaction and one after it, which also carry auto-commit, the second one
 * committing the transaction). That
 * is what makes the check right (c): a stale writer that waited on the mark's row lock behind a newer writer re-reads
 * the newest mark once the newer one commits, and is rejected (tested on every database, with connections handed out
 * at READ COMMITTED, REPEATABLE READ and SERIALIZABLE). Work that needs a stronger guarantee locks what it reads
 * ({@code SELECT ... FOR UPDATE}). Every statement waits at most {@link StoreConfig#lockTimeout()} for a lock.
 * Serialization failures and deadlocks of the gate's own statements are retried a few times; of your work through
 * {@link #write}/{@link #call}, never (it may have done what cannot be undone); of {@link #update}'s one statement,
 * yes: it is rolled back whole with the check, so running it again is as if it ran once.
 *
 * <p>Cost over the same work in a plain transaction: one statement more. Through {@link #write}/{@link #call} it is
 * one round trip more (the check, then your statements, then the commit), except on MariaDB and MySQL, where it is
 * none: the settings' two SETs carry the auto-commit switches a plain JDBC transaction sends anyway, and the second
 * one also commits (four statements for a plain insert either way). The gate's other framing: it makes sure your
 * work did not end its transaction (issue 21) with a statement before the work and one before the commit, on
 * PostgreSQL, MariaDB and MySQL only if your work sent anything but plain DML ({@code SELECT}, {@code INSERT},
 * {@code UPDATE}, {@code DELETE}, {@code REPLACE}, {@code WITH}, which cannot end a transaction there: functions and
 * triggers may not commit), called {@code unwrap} or {@code getMetaData}, or took an {@code Array}, {@code Ref},
 * {@code Struct} or nested result set from a result set (a result set's {@code getStatement()} is the guarded
 * statement). If a statement of such a work failed and the work went on, the gate
 * makes sure the failure did not end or abort its transaction before it commits: a deadlock, serialization failure,
 * lock timeout or lost connection (which may roll the whole transaction back, the check's lock included) is a
 * retryable {@link StoreException}, and on PostgreSQL, where any failure aborts the transaction until your work rolls
 * back to a savepoint of its own, one statement asks whether it is still usable; in both cases nothing is kept. {@link #update} sends the check, one
 * statement of yours and the commit together: on PostgreSQL in ONE round trip, one fewer than a plain
 * {@code BEGIN; statement; COMMIT} through JDBC. Cheapest of all: carry the token in your own row ({@code UPDATE t
 * SET ..., token = :t WHERE id = :id AND token <= :t}), which costs nothing over a plain UPDATE, if every writer of
 * those rows does the same.
 *
 * <p>"Fence first": a new leader should call {@link #advance} with its token before it reads state or acts, so the
 * old leader cannot commit between the new leader's read and its first write.
 *
 * <p>IMPORTANT: the fence's durability is the database's. A mark acknowledged by a primary whose standbys replicate
 * asynchronously can be lost when a standby is promoted, and a stale token then passes. At its first write a gate reads
 * {@link FailoverDurability} (one query, on a connection of its own) and logs a WARN once per server if it is
 * {@linkplain FailoverDurability#atRisk() at risk}; call {@link FencedSchema#durability} at start to act on it.
 *
 * <p>Every write ({@code write}, {@code call}, {@code update}, {@code advance}) is told to the
 * {@link StoreConfig#listener()} once it ended: accepted, stale or failed.
 *
 * <p>Thread-safe: one gate may serve any number of threads; each call uses its own connection and transaction.
 *
 * <p>Why one file of more than 300 lines: it is the store's public entry point for fenced writes, and most of it is the
 * Javadoc of each way to write (write, call, update, advance, rebase, history); the mechanics live in {@code internal}.
 */
public final class FenceGate {

    private static final Logger log = LoggerFactory.getLogger(FenceGate.class);

    private final StoreContext context;
    /** The check itself, and per resource the token this gate last saw pass and commit (a hint, bounded). */
    private final MarkCheck marks;

    private final PassedTokens passed;

    /**
     * A gate on {@code ds} with {@link StoreConfig#defaults()}.
     *
     * @param ds where the schema lives (see {@link FencedSchema})
     */
    public FenceGate(DataSource ds) {
        this(ds, StoreConfig.defaults());
    }

    /**
     * A gate on {@code ds}.
     *
     * @param ds     where the schema lives (see {@link FencedSchema})
     * @param config table prefix, isolation, retries and the rest
     */
    public FenceGate(DataSource ds, StoreConfig config) {
        this.context = new StoreContext(ds, config);
        this.marks = new MarkCheck(context, config.historyLimit());
        this.passed = marks.passed();
    }

    /**
     * Runs {@code work} in one transaction with the token check.
     *
     * @param resource the name of the fenced resource: not blank, at most 200 characters
     * @param token    the writer's fencing token
     * @param work     the writes, on a connection it cannot commit, roll back or close
     * @throws StaleTokenException if {@code token} is lower than the highest seen for {@code resource}
     * @throws StoreException      if the database or the work failed with an SQLException, or the work called a
     *                             refused method such as {@code commit()} (rolled back)
     */
    public void write(String resource, long token, FencedWork work) {
        Args.notNull(work, "work");
        call(resource, token, tx -> {
            work.run(tx);
            return null;
        });
    }

    /**
     * Like {@link #write}, returning what {@code work} returns.
     *
     * @param <T>      what the work returns
     * @param resource the name of the fenced resource: not blank, at most 200 characters
     * @param token    the writer's fencing token
     * @param work     the writes, on a connection it cannot commit, roll back or close
     * @return what {@code work} returned, once committed
     * @throws StaleTokenException if {@code token} is lower than the highest seen for {@code resource}
     * @throws StoreException      as for {@link #write}
     */
    public <T> T call(String resource, long token, FencedCall<T> work) {
        Args.name(resource, "resource");
        Args.token(token, "token");
        Args.notNull(work, "work");
        return told(
                resource,
                token,
                () -> committed(
                        resource,
                        token,
                        context.jdbc()
                                .inTransaction(
                                        "fenced write to '" + resource + "' with token " + token,
                                        tx -> {
                                            marks.pass(tx, resource, token, null);
                                            return null;
                                        },
                                        work::call)));
    }

    /**
     * The token check inside YOUR transaction, open on {@code tx} (a Spring {@code @Transactional} method's
     * connection, a JPA or jOOQ transaction's, a plain JDBC one with auto-commit off): for writes that are not made
     * through this gate's own transactions. It takes the lock on the resource's mark that {@link #write} takes (shared
     * for a token this gate saw pass and commit, exclusive for a raise or a resource's first use), and that lock is
     * held until YOUR transaction ends. So every statement of the transaction, before or after the check, commits only
     * if no higher token became the mark first; and a new leader's {@link #advance} returns only once no transaction
     * that passed a lower token can still commit (it waits for yours: see docs/your-transaction.md for how long).
     * Commit or roll back as usual after your writes; the check sends its statements on {@code tx} and nothing else.
     *
     * <p>IMPORTANT: on {@link StaleTokenException} you MUST roll back. Catching it and committing keeps every stale
     * write of the transaction, those before the check included: the check cannot undo them, only refuse to pass.
     *
     * <p>It never commits, rolls back, closes or reconfigures {@code tx}: the store's lock timeout
     * ({@link StoreConfig#lockTimeout()}) bounds the check's own lock waits and the caller's is put back before it
     * returns; the isolation is yours. READ COMMITTED, REPEATABLE READ and SERIALIZABLE all work; a transaction whose
     * snapshot predates a raise of the mark never passes a lower token: on PostgreSQL its locking read of the mark
     * fails with a serialization error, a retryable {@link StoreException} (roll back and run the transaction again).
     * The idle-in-transaction bound is yours too ({@link StoreConfig#idleInTransactionTimeout()} applies only to the
     * gate's own transactions). The gate remembers a token for its shorter shared check only once the mark was found
     * committed at that token, never from a raise inside your still-open transaction. Told to the
     * {@link StoreConfig#listener()} as a write is, when the check ends (accepted means: passed). It does not read
     * {@link FailoverDurability} (that takes a connection of its own): call {@link FencedSchema#durability} at start.
     *
     * @param tx       the connection of your open transaction: not null, not closed, auto-commit off, not read-only
     * @param resource the name of the fenced resource: not blank, at most 200 characters
     * @param token    the writer's fencing token
     * @throws IllegalStateException    if {@code tx} is null, closed, in auto-commit mode or read-only (before anything
     *                                  is sent; the message names the fix), or the database refused the check as
     *                                  part of a read-only transaction (then roll back)
     * @throws IllegalArgumentException if the resource is blank or too long, or the token not positive
     * @throws StaleTokenException      if {@code token} is lower than the resource's mark: roll back
     * @throws StoreException           if the database failed (a lock timeout, a serialization failure, a lost
     *                                  connection: {@link StoreException#retryable()}): roll back
     */
    public void check(Connection tx, String resource, long token) {
        Args.name(resource, "resource");
        Args.token(token, "token");
        CallersCheck.refuseUnusable(tx);
        tell(resource, token, () -> {
            CallersCheck.check(context, marks, tx, resource, token);
            return null;
        });
    }

    /** After a commit: remembers that {@code token} passed for {@code resource}, and returns {@code result}. */
    private <T> T committed(String resource, long token, T result) {
        passed.passed(resource, token);
        return result;
    }

    /** Runs {@code body}, then tells the store's listener how the write ended (never changing that). */
    private <T> T told(String resource, long token, Supplier<T> body) {
        context.checkDurabilityOnce(); // at the first write only: a WARN if a failover can lose the marks
        return tell(resource, token, body);
    }

    /** Runs {@code body}, then tells the store's listener how it ended. */
    private <T> T tell(String resource, long token, Supplier<T> body) {
        T result;
        try {
            result = body.get();
        } catch (Throwable t) {
            FenceOutcome outcome = t instanceof StaleTokenException ? FenceOutcome.STALE : FenceOutcome.FAILED;
            context.events().tell(listener -> listener.fenceWrite(resource, token, outcome));
            throw t;
        }
        context.events().tell(listener -> listener.fenceWrite(resource, token, FenceOutcome.ACCEPTED));
        return result;
    }

    /**
     * Runs ONE statement of yours, an {@code INSERT}, {@code UPDATE}, {@code DELETE} or {@code MERGE} with {@code ?}
     * parameters bound from {@code params}, with the token check, atomically, and returns its update count. On
     * PostgreSQL the check, the statement and the commit travel in ONE round trip (one fewer than a plain
     * {@code BEGIN; statement; COMMIT} through JDBC): the check is written to fail when the token is refused, which
     * aborts the transaction before your statement runs. Elsewhere it is {@link #call} with your statement as the
     * work. Parameters are bound with {@code setObject} ({@link java.time.Instant} as a UTC timestamp, null as NULL).
     *
     * @param resource the name of the fenced resource: not blank, at most 200 characters
     * @param token    the writer's fencing token
     * @param sql      the statement, with {@code ?} parameters
     * @param params   the parameters' values, in order
     * @return the statement's update count
     * @throws IllegalArgumentException if {@code sql} is not one such statement: it must start with INSERT, UPDATE,
     *                                  DELETE or MERGE, hold no {@code ;}, no comment ({@code --} or {@code /*}, even
     *                                  inside a literal) and no {@code RETURNING} (pass values as parameters; for
     *                                  more, use {@link #call}). Refused at the door, nothing sent: the gate frames
     *                                  your statement with its own (the check before it, on PostgreSQL the COMMIT
     *                                  after it, in the same round trip), and a comment could hide or a {@code ;} add
     *                                  a statement. Behind the door, every result of the block is verified, the
     *                                  COMMIT's included; a block whose results do not match is rolled back and
     *                                  reported as a {@link StoreException}, never as done
     * @throws StaleTokenException      if {@code token} is lower than the highest seen for {@code resource}; nothing
     *                                  of the statement was kept
     * @throws StoreException           if the database failed (nothing kept; a {@link CommitOutcomeUnknownException}
     *                                  if the connection was lost while the commit may have happened)
     */
    public int update(String resource, long token, String sql, Object... params) {
        Args.name(resource, "resource");
        Args.token(token, "token");
        if (sql == null
                || !ONE_WRITE.matcher(sql).matches()
                || sql.indexOf(';') >= 0
                || RETURNING.matcher(sql).find()) {
            throw new IllegalArgumentException("sql must be one INSERT, UPDATE, DELETE or MERGE statement without ';'"
                    + " or RETURNING (pass values as parameters), was " + (sql == null ? "null" : "'" + sql + "'"));
        }
        if (sql.contains("--") || sql.contains("/*")) {
            throw new IllegalArgumentException("sql must hold no comment ('--' or '/*'), even inside a literal (pass"
                    + " values as parameters): a comment can hide what the gate sends after your statement, was '"
                    + sql + "'");
        }
        Args.notNull(params, "params");
        return told(resource, token, () -> inOneOrTwo(resource, token, sql, params));
    }

    private int inOneOrTwo(String resource, long token, String sql, Object[] params) {
        String operation = "fenced statement on '" + resource + "' with token " + token;
        Optional<TxDialect> known = context.knownTx();
        boolean seen = passed.seen(resource, token); // else the two-step path records the mark's change
        if (seen && (known.isEmpty() || known.get().multiStatement())) {
            Integer count = context.jdbc()
                    .withConnection(operation, tx -> inOneRoundTrip(operation, tx, resource, token, sql, params));
            if (count != null) {
                return count;
            }
        }
        return committed(
                resource,
                token,
                context.jdbc()
                        .inTransaction(
                                operation,
                                tx -> {
                                    marks.pass(tx, resource, token, null);
                                    return null;
                                },
                                tx -> Jdbc.updates(tx, List.of(sql), params)[0]));
    }

    /** The check, the statement and the commit in one round trip; null where the database cannot. */
    private Integer inOneRoundTrip(
            String operation, Connection tx, String resource, long token, String sql, Object[] params)
            throws SQLException {
        Optional<String> assertion = context.tx().fenceAssert(context.sql().tables);
        if (assertion.isEmpty()) {
            return null;
        }
        Optional<String> queue = context.sql().markQueue(false); // its shared lock first, in the same round trip
        String check = queue.map(q -> q + "; ").orElse("") + assertion.get();
        int skip = queue.isPresent() ? 3 : 2;
        Object[] all = new Object[params.length + skip];
        if (queue.isPresent()) {
            all[0] = resource;
        }
        all[skip - 2] = resource;
        all[skip - 1] = token;
        System.arraycopy(params, 0, all, skip, params.length);
        try {
            return Jdbc.checkedUpdate(tx, check, sql, all);
        } catch (SQLException e) {
            if (SqlStates.of(e) == SqlStates.Kind.CONNECTION_LOST) {
                // in auto-commit the COMMIT went in the same round trip: the store reports an unknown outcome (the
                // connection is closed by now, so its auto-commit cannot be asked here); in a transaction, a retry
                throw e;
            }
            if (!TxDialect.REFUSED_STATE.equals(e.getSQLState())) {
                throw e;
            }
            if (!tx.getAutoCommit()) {
                tx.rollback(); // the pool's connections come without auto-commit: end the aborted transaction first
            }
            OptionalLong highest = marks.mark(tx, resource);
            if (highest.isPresent() && highest.getAsLong() > token) {
                throw new StaleTokenException(resource, token, highest.getAsLong());
            }
            if (highest.isPresent() && highest.getAsLong() == token) {
                throw e; // a division by zero in the caller's own statement: the mark did not refuse the token
            }
            passed.forget(resource); // lower (re-based by another gate) or gone: the two-step path records the raise
            return null;
        }
    }

    /**
     * Raises the resource's mark to {@code token} with no other work ("fence first" on gaining leadership).
     *
     * @param resource the name of the fenced resource: not blank, at most 200 characters
     * @param token    the new leader's fencing token
     * @throws StaleTokenException if a higher token was already seen
     */
    public void advance(String resource, long token) {
        advance(resource, token, null);
    }

    /**
     * Like {@link #advance(String, long)}, and if the token raises the mark, the history row names {@code holder}
     * (a participant id, a host name): who held this token, for the incident review.
     *
     * @param resource the resource, as for {@link #advance(String, long)}
     * @param token    the token, as for {@link #advance(String, long)}
     * @param holder a label of at most 200 characters, or null for none
     * @throws StaleTokenException if a higher token was already seen
     */
    public void advance(String resource, long token, String holder) {
        Args.name(resource, "resource");
        Args.token(token, "token");
        if (holder != null) {
            Args.name(holder, "holder");
        }
        told(
                resource,
                token,
                () -> committed(
                        resource,
                        token,
                        context.jdbc()
                                .inTransaction("advancing the fence" + " of '" + resource + "' to " + token, tx -> {
                                    marks.pass(tx, resource, token, holder);
                                    return null;
                                })));
    }

    /**
     * The newest {@code limit} changes of the resource's mark, newest first: every token that became its mark
     * ({@link #advance}, or the first accepted write with a higher token), with the mark before it, the holder if
     * {@link #advance(String, long, String)} named one, and the database time; and every {@link #rebase}, with its
     * operator and reason. The table keeps {@link StoreConfig#historyLimit()} raises per resource; re-bases are never
     * deleted (a re-base audited before schema version 4 was copied in by that migration). Answers "who held token
     * 33, from when to when, and what came after".
     *
     * @param resource the resource
     * @param limit 1 to 10,000
     * @return the changes, newest first; empty if the resource has none
     * @throws IllegalArgumentException if the resource is blank or too long, or {@code limit} out of range
     */
    public List<MarkChange> history(String resource, int limit) {
        Args.name(resource, "resource");
        if (limit < 1 || limit > 10_000) {
            throw new IllegalArgumentException("limit must be between 1 and 10000, was " + limit);
        }
        return context.jdbc()
                .withConnection(
                        "reading the history of the fence of '" + resource + "'",
                        connection -> FenceHistory.read(connection, context.sql(), resource, limit));
    }

    /**
     * Reads the resource's mark.
     *
     * @param resource the name of the fenced resource
     * @return the highest token the resource has accepted, or empty if it has never seen one
     */
    public OptionalLong highestToken(String resource) {
        Args.name(resource, "resource");
        return context.jdbc()
                .withConnection(
                        "reading the fence of '" + resource + "'", connection -> marks.mark(connection, resource));
    }

    /**
     * IMPORTANT: an operator's procedure, never automatic. Sets the resource's mark to {@code newToken} even if it
     * is lower, after the token source was rebuilt (a wiped or new ZooKeeper ensemble restarts its czxids low, and a
     * fenced resource would refuse every new leader). Make sure no old leader can still write first. Logged at WARN
     * and recorded with who did it and why, in the same transaction.
     *
     * @param resource the name of the fenced resource
     * @param newToken the new mark, usually the new ensemble's first leader's token: positive, as every write's token
     *                 (a mark of 1 already lets every token pass)
     * @param operator who re-bases: not blank, at most 200 characters
     * @param reason   why: 1 to 1000 non-blank characters
     * @return the mark before the re-base, if there was one
     */
    public OptionalLong rebase(String resource, long newToken, String operator, String reason) {
        Args.name(resource, "resource");
        Args.token(newToken, "newToken");
        Args.name(operator, "operator");
        Args.notNull(reason, "reason");
        if (reason.isBlank() || reason.length() > 1000) {
            throw new IllegalArgumentException("reason must be 1 to 1000 non-blank characters, was '" + reason + "'");
        }
        OptionalLong old = context.jdbc().inTransaction("re-basing the fence of '" + resource + "'", tx -> {
            SqlDialect sql = context.sql();
            OptionalLong previous = FenceHistory.lockMark(tx, sql, resource); // behind the queue, as a raise
            String set = "UPDATE " + sql.tables.fence() + " SET token = ?, updated_at = " + sql.now()
                    + " WHERE resource = ?";
            if (!Jdbc.oneRow(Jdbc.update(tx, set, newToken, resource), "rebase")
                    && !marks.insertMark(tx, resource, newToken)
                    && !Jdbc.oneRow(Jdbc.update(tx, set, newToken, resource), "rebase")) {
                throw new IllegalStateException(
                        "the fence row of '" + resource + "' could be neither inserted nor" + " updated: a bug");
            }
            Jdbc.update(
                    tx,
                    "INSERT INTO " + sql.tables.fenceRebase()
                            + " (resource, old_token, new_token, operator, reason, rebased_at) VALUES (?, "
                            + (previous.isEmpty() ? "NULL" : "?") + ", ?, ?, ?, " + sql.now() + ")",
                    previous.isEmpty()
                            ? new Object[] {resource, newToken, operator, reason}
                            : new Object[] {resource, previous.getAsLong(), newToken, operator, reason});
            FenceHistory.rebased(tx, sql, resource, newToken, previous, operator, reason);
            return previous;
        });
        passed.forget(resource); // the mark may be lower now: a token of ours raising it again is a change to record
        log.warn(
                "fence of resource '{}' RE-BASED from {} to {} by '{}': {}",
                resource,
                old.isPresent() ? old.getAsLong() : "nothing",
                newToken,
                operator,
                reason);
        return old;
    }

    private static final Pattern ONE_WRITE =
            Pattern.compile("\\s*(?i:INSERT|UPDATE|DELETE|MERGE)\\s.*", Pattern.DOTALL);
    private static final Pattern RETURNING = Pattern.compile("(?i)\\bRETURNING\\b");
}
