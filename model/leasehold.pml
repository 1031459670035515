/*
 * Leasehold's fenced leader election, as a Promela model for SPIN.
 *
 * ZooKeeper (abstracted), NP participants running Curator's LeaderLatch with Leasehold's token read, and the
 * fenced store (FenceGate over a READ COMMITTED database). SPIN explores every interleaving of their steps, so
 * any process may pause between any two of its steps for as long as it likes: a GC pause, a frozen VM or a slow
 * network are all covered by "the other processes run first".
 *
 * The real design is checked with no define. Each define below swaps one piece for a broken one, which the
 * checker must refute:
 *   NO_FENCE        a participant checks "I lead" at ZooKeeper, then writes without any check at the store
 *   SEQ_TOKEN       the token is the node's sequence suffix instead of its czxid (the parent may be reaped)
 *   NONATOMIC_GATE  the store reads the highest token with a SELECT, compares in the client, then UPDATEs
 *   UNVERIFIED_READ the token is the czxid of Curator's current node, read without checking that the node is
 *                   the lowest child and owned by the client's current session
 *   NO_RECHECK      (a fifth, for the store) a database that does not evaluate the WHERE again after waiting
 *                   for the row lock
 *
 * Properties (assertions; the numbers are the history checker's rules, scenarios' HistoryChecker):
 *   rule 1 + 2  a write commits only with a token >= every token already committed by a write
 *               (one resource: "never decrease in commit order" and "nothing after a higher one" coincide at
 *               the first violation, so one assertion states both)
 *   rule 3      each token belongs to one ZooKeeper session, both when it is granted and when a write commits
 *   rule 5      successive grants carry non-decreasing tokens, equal only for the same owner (the same grant
 *               read again)
 * Rule 4 (an acknowledged write is never lost) is about the database's durability and is not modelled: a
 * commit here is atomic and durable.
 */

/* ---- bounds (all explicit; model/check prints them) ------------------------------------------------------ */
#define NP          3   /* participants (fixed: init starts three) */
#ifndef MAXNODES
#define MAXNODES    4   /* election znodes created in all (at most NODESLOTS): 3 joins and 1 rejoin or re-creation */
#endif
#ifndef MAXGRANTS
#define MAXGRANTS   4   /* tokens handed out in all */
#endif
#ifndef MAXEXPIRIES
#define MAXEXPIRIES 1   /* sessions the server expires (model/check also runs the design with 2) */
#endif
#ifndef MAXCEXP
#define MAXCEXP     0   /* sessions a client gives up on while the server keeps them (client-side expiry) */
#endif
#ifndef MAXREAPS
#define MAXREAPS    1   /* times the empty container parent is reaped */
#endif
#ifndef MAXRESETS
#define MAXRESETS   1   /* times Curator replaces a participant's node without telling it (the double reset) */
#endif
#ifndef WRITES
#define WRITES      2   /* writes a leader makes per grant, after fencing first */
#endif

#define NODESLOTS   6   /* the node arrays; LOWEST below is unrolled for 6 */
#if MAXNODES > NODESLOTS
#error "MAXNODES must be at most NODESLOTS"
#endif
#define MAXSESS     (NP + MAXEXPIRIES + MAXCEXP)   /* session ids 1..MAXSESS; 0 = none */
#if MAXSESS > 6
#error "at most 6 sessions: the server's EXPIRE_OPTIONs are unrolled for 6"
#endif
#define NONE        255

/* ---- ZooKeeper ------------------------------------------------------------------------------------------ */
/* Node n is the n-th create. zxid counts creates only: the other transactions (deletes, session closes) would
 * leave gaps in the numbering but never change its order, and order is all a token needs. So czxid(n) = n + 1. */
byte nnodes;                 /* nodes created so far = the last czxid */
bool nAlive[NODESLOTS];      /* the node exists */
byte nSess[NODESLOTS];       /* its ephemeralOwner */
byte nSeq[NODESLOTS];        /* its sequence suffix, from the parent's counter */
byte seqctr;                 /* the parent's sequence counter: restarts at 0 when the parent is reaped */
byte live;                   /* nodes that exist (the parent is empty when 0) */
bool sAlive[7];              /* the server's view of each session (1..6) */
byte nextSess;               /* the last session id handed out */
byte expiries, cexps, reaps, resets, grants;

#define CZXID(n)     (n + 1)
#define BELOW(m, n)  (nAlive[m] && nSeq[m] < nSeq[n])
/* n is the lowest child: it exists and no existing child has a lower sequence number. */
#define LOWEST(n)    (n != NONE && nAlive[n] && !BELOW(0, n) && !BELOW(1, n) && !BELOW(2, n) \
                      && !BELOW(3, n) && !BELOW(4, n) && !BELOW(5, n))

#ifdef SEQ_TOKEN
#define TOKEN(n)     nSeq[n]
#else
#define TOKEN(n)     CZXID(n)
#endif

/* ---- the store: one resource, its fence row ---------------------------------------------------------------- */
byte mark;                   /* the committed token of the fence row (0 = the row's first use) */
byte lockHolder;             /* participant + 1 holding the row lock until its commit; 0 = none */

/* ---- ghosts for the properties (no process reads them to decide anything) ------------------------------- */
byte hiWrite;                /* the highest token a committed write carried */
byte wSess;                  /* the session of the last committed write (0 = none yet) */
byte lastGrant;              /* the token of the last grant */
byte gSess;                  /* the session of the last grant (0 = none yet) */
/* Rule 3 needs only the last owner: while tokens never decrease (asserted first), a token can come back only in
 * an unbroken run of equal tokens, so "same token, same session as the last one" is "one owner per token". */

/* Probes: model/check compiles with one of them defined and requires SPIN to reach it, which shows that the
 * bounds let the design meet that situation (a check that cannot see a case cannot vouch for it). */
#ifndef PROBE_RECHECK
#define PROBE_RECHECK 0      /* a statement that waited for the row lock is rejected when evaluated again */
#endif
#ifndef PROBE_STALE_WRITE
#define PROBE_STALE_WRITE 0  /* a write (not a fence) with a stale token is rejected at once */
#endif
#ifndef PROBE_REAPED_GRANT
#define PROBE_REAPED_GRANT 0 /* a token is granted after the parent was reaped */
#endif
#define PROBE(reached) assert(!(reached))

inline create(n) {
    n = nnodes; nnodes++;
    nAlive[n] = true; nSess[n] = sess; nSeq[n] = seqctr; seqctr++; live++;
    printf("MSC: P%d creates node %d (seq %d, czxid %d) in session %d\n", p, n, nSeq[n], CZXID(n), sess)
}

inline delete(n) {
    nAlive[n] = false; live--
}

/* A write commits: the history checker's rules, then the write is kept. */
inline commitWrite(t) {
    printf("MSC: P%d COMMITS a write with token %d (session %d)\n", p, t, sess);
    assert(t >= hiWrite);                            /* rules 1 and 2 */
    assert(t > hiWrite || wSess == 0 || wSess == sess);  /* rule 3 at the store */
    hiWrite = t; wSess = sess
}

/* A token is handed out. */
inline grant(n) {
    PROBE(PROBE_REAPED_GRANT && reaps > 0);
    tok = TOKEN(n); grants++; w = 0;
    printf("MSC: P%d is GRANTED token %d (node %d, session %d)\n", p, tok, n, sess);
    assert(tok >= lastGrant);                        /* rule 5 */
    assert(tok > lastGrant || gSess == 0 || gSess == sess);  /* rule 3 at the grant */
    lastGrant = tok; gSess = sess
}

/* The gate's update count is 0: the token is stale. */
inline reject(t, probe) {
    printf("MSC: P%d is REJECTED with token %d (mark %d)\n", p, t, mark);
    PROBE(probe);
    goto release                                     /* StaleTokenException: stop, drop back to follower */
}

/*
 * When `when` holds, one transaction of the gate with token t: the fence check, then (if isWrite) the write, then
 * commit. A stale token sends the participant to release (StaleTokenException: stop, drop back to follower).
 *
 * Real design (FenceGate): UPDATE fence SET token = t WHERE resource = r AND token <= t, judged by its update
 * count. READ COMMITTED: the WHERE is first evaluated on the last committed row version; if it matches but another
 * transaction holds the row lock, the statement waits, then evaluates the WHERE again on the newest committed
 * version (PostgreSQL's re-check; H2 does the same).
 */
inline gate(when, t, isWrite) {
#ifdef NONATOMIC_GATE
    /* SELECT token FROM fence WHERE resource = r, compared in the client ... */
    atomic {
        when ->
        if
        :: mark > t -> reject(t, 0)
        :: else -> printf("MSC: P%d SELECTs the mark: %d, not above its token %d\n", p, mark, t)
        fi
    };
    /* ... then UPDATE fence SET token = t WHERE resource = r: waits for the row lock, no condition left */
    atomic {
        lockHolder == 0 ->
        lockHolder = p + 1; printf("MSC: P%d UPDATEs the mark (no condition): the row is locked until commit\n", p)
    };
#else
    atomic {
        when ->
        if
        :: mark > t -> reject(t, PROBE_STALE_WRITE && isWrite)
        :: mark <= t && lockHolder == 0 ->
            lockHolder = p + 1;
            printf("MSC: P%d's UPDATE with token %d matches (mark %d): the row is locked until commit\n", p, t, mark)
        :: mark <= t && lockHolder != 0 ->
            /* waits for the row lock (atomicity is given up here: the others run) ... */
            printf("MSC: P%d (token %d) waits for the row lock held by P%d\n", p, t, lockHolder - 1);
            lockHolder == 0;
#ifdef NO_RECHECK
            lockHolder = p + 1;                      /* a database that keeps its first evaluation */
            printf("MSC: P%d takes the row lock on its first evaluation, not evaluated again\n", p)
#else
            /* ... the holder committed: the WHERE is evaluated again on the newest committed version */
            if
            :: mark <= t ->
                lockHolder = p + 1;
                printf("MSC: P%d's UPDATE, evaluated again, matches (mark %d): the row is locked\n", p, mark)
            :: else ->
                printf("MSC: P%d's UPDATE, evaluated again, matches no row: the mark is now %d\n", p, mark);
                reject(t, PROBE_RECHECK)
            fi
#endif
        fi
    };
#endif
    /* the work runs in the transaction (a pause here holds the row lock), then commit. A rollback (connection
     * lost, the work threw) is left out: it changes nothing at the store, and a statement waiting behind it then
     * finds the row as it was, as if it had never waited. */
    atomic {
        if
        :: isWrite -> commitWrite(t); w++
        :: else -> printf("MSC: P%d fences: the mark goes from %d to %d\n", p, mark, t)
        fi;
        mark = t; lockHolder = 0
    }
}

proctype Participant(byte p; byte sess) {
    byte mine = NONE;   /* Curator's current node for this participant */
    bool leads;         /* Curator has said "I lead" (it may no longer be true) */
    byte tok = NONE;    /* the token held, NONE when not leading */
    byte w;             /* writes attempted under tok */

join:
    if
    :: atomic { sAlive[sess] && nnodes < MAXNODES -> create(mine) }
    :: atomic { !sAlive[sess] -> goto expired }   /* the create fails: the client learns its session expired */
    :: atomic { nnodes >= MAXNODES -> goto done } /* the bound is reached */
    fi;

end_follow:
    do
#ifdef UNVERIFIED_READ
    /* Curator's check: our node is the lowest child and owned by our session (CURATOR-696) ... */
    :: atomic {
           !leads && LOWEST(mine) && nSess[mine] == sess ->
           leads = true; printf("MSC: P%d: Curator says I lead (node %d)\n", p, mine)
       }
    /* ... and later, because Curator has said so, the czxid of Curator's current node, whatever it is now */
    :: atomic {
           leads && grants < MAXGRANTS && nAlive[mine] ->
           grant(mine); goto leader
       }
#else
    /* Curator's check and ElectionNodes' read, one read-only multi (getChildren + getData) served atomically by
     * one server: our node is the lowest child and owned by our current session. The read checks everything
     * Curator's own check establishes, so an earlier, separate Curator check would only add refusals: they are
     * the same step here. */
    :: atomic {
           grants < MAXGRANTS && LOWEST(mine) && nSess[mine] == sess ->
           leads = true; grant(mine); goto leader
       }
#endif
    /* Curator replaces our node (deletes it, creates another) and does not report it: leads stays as it was */
    :: atomic {
           resets < MAXRESETS && mine != NONE && nAlive[mine] ->
           resets++; delete(mine); printf("MSC: P%d: Curator deletes its node %d (reset)\n", p, mine);
           goto join                             /* ... and creates another; leads is kept */
       }
    :: atomic { !sAlive[sess] -> goto expired }  /* the client learns, late, that the server expired its session */
    :: atomic { cexps < MAXCEXP -> cexps++; goto expired }  /* client-side expiry: the server keeps the session */
    od;

leader:
#ifndef NO_FENCE
    gate(true, tok, false);                       /* fence first: advance */
#endif
    do
#ifdef NO_FENCE
    :: atomic {
            w < WRITES ->
            /* "am I the leader?" asked of ZooKeeper itself, then the write, with no check at the store */
            if
            :: LOWEST(mine) && nSess[mine] == sess -> printf("MSC: P%d asks ZooKeeper: my node is the lowest, I lead\n", p)
            :: else -> goto release
            fi
        };
        atomic { commitWrite(tok); w++ }
#else
    :: gate(w < WRITES, tok, true)
#endif
    :: atomic { !sAlive[sess] -> goto expired }  /* learns of the expiry, late */
    :: atomic { cexps < MAXCEXP -> cexps++; goto expired }
    :: goto release                               /* close(): the work has stopped; release the node */
    od;

release:
    atomic {
        if
        :: mine != NONE && nAlive[mine] -> delete(mine); printf("MSC: P%d releases node %d\n", p, mine)
        :: else
        fi;
        mine = NONE; leads = false; tok = NONE; w = 0;
        goto join
    };

expired:
    atomic {
        printf("MSC: P%d learns its session %d is lost, starts session %d\n", p, sess, nextSess + 1);
        mine = NONE; leads = false; tok = NONE; w = 0;
        nextSess++; sess = nextSess; sAlive[sess] = true;
        goto join
    };

done:
    skip
}

/* The server expires session s: its ephemeral nodes go in the same transaction. */
inline expire(s) {
    sAlive[s] = false; expiries++;
    i = 0;
    do
    :: i < NODESLOTS ->
        if
        :: nAlive[i] && nSess[i] == s -> delete(i)
        :: else
        fi;
        i++
    :: else -> break
    od;
    i = 0;
    printf("MSC: ZooKeeper EXPIRES session %d\n", s)
}

/* The guard is the d_step's first statement, so checking it and acting on it are one step. */
#define EXPIRE_OPTION(s) :: d_step { expiries < MAXEXPIRIES && sAlive[s] -> expire(s) }

#ifndef GATE_LOCKS   /* not started when the gate's lock protocol is checked on its own */
active proctype ZooKeeper() {
    byte i;
end_server:
    do
    EXPIRE_OPTION(1)
    EXPIRE_OPTION(2)
    EXPIRE_OPTION(3)
    EXPIRE_OPTION(4)
    EXPIRE_OPTION(5)
    EXPIRE_OPTION(6)
    /* the container parent is empty: it is reaped, and its sequence counter restarts with the next create */
    :: d_step {
           reaps < MAXREAPS && live == 0 && seqctr > 0 ->
           reaps++; seqctr = 0; printf("MSC: ZooKeeper REAPS the empty parent: sequence restarts at 0\n")
       }
    od
}
#endif

#ifndef GATE_LOCKS   /* GATE_LOCKS checks the gate's lock protocol on its own: see the block at the end */
init {
    atomic {
        sAlive[1] = true; sAlive[2] = true; sAlive[3] = true; nextSess = NP;
        run Participant(0, 1); run Participant(1, 2); run Participant(2, 3)
    }
}
#endif

/* ==== the gate's lock protocol (issues 24, 41, 43): several writers of one token beside a raise ============
 *
 * Compiled with GATE_LOCKS, and then ON ITS OWN (the election above is not started): one resource whose mark the
 * old leader has raised to 1; GWRITERS threads of that leader each write GWRITES times through the gate with
 * token 1 (with GATE_FOREVER: without end, the writers keep coming), while a new leader advances the mark to 2 and
 * then writes GWRITES times with token 2. The election's participants above write one at a time, so for them a
 * shared and an exclusive lock cannot differ; here they can.
 *
 * The row protocol (FenceGate, every database):
 *   equal token   SELECT 1 FROM fence WHERE resource = r AND token = t FOR SHARE (InnoDB: LOCK IN SHARE MODE):
 *                 waits while an exclusive lock is held, then reads the newest committed mark; one row = the
 *                 mark is t and is now share-locked until commit (writers of t do not exclude each other); none =
 *                 nothing locked, go on with the exclusive check;
 *   otherwise     UPDATE fence SET token = t WHERE resource = r AND token <= t (a raise, a first use, a write
 *                 whose gate has not seen t pass): waits while ANY lock is held, then evaluates the WHERE on the
 *                 newest committed mark; one row = the mark is t and exclusively locked until commit; none = stale.
 * Which of the two a write tries first depends on what its gate remembers, so here it is chosen freely: the
 * guarantee must not depend on it.
 *
 * The fair lock (GATE_FAIR, issue 41: PostgreSQL): before the row protocol, the check takes a transaction-level
 * advisory lock on the resource, shared on the shared path and exclusive on the exclusive path, held to the end of
 * the transaction. PostgreSQL's heavyweight lock queue: a request is granted at once only if it conflicts neither
 * with a lock held nor with a request already WAITING (so a new sharer queues behind a waiting raise); otherwise
 * it waits in arrival order, and each release grants the waiters, front to back, that conflict neither with what
 * is held nor with a waiter still ahead of them (ProcLockWakeup). Without GATE_FAIR the row lock alone decides, as
 * PostgreSQL's row locks do: a FOR SHARE that finds only sharers joins them at once, even while an UPDATE waits.
 *
 * The caller's transaction (GATE_CALLER_TX, issue 43: FenceGate.check(tx, resource, token)): the check joins a
 * transaction the caller owns. The caller may write before the check (uncommitted) and after it, and then commits
 * or rolls back as it chooses; a stale check makes it roll back. The check's locks end with that transaction.
 * Without GATE_CALLER_TX the gate owns the transaction: the check, one write, commit.
 *
 * Properties (assertions at each write's commit, and at each grant of the advisory lock):
 *   G1  a write whose token is below the mark at its commit is never kept: t >= the committed mark (with the
 *       caller's transaction: every write of it, before the check or after);
 *   G2  a write commits only with a token >= every advance that has RETURNED (advance returns only once no
 *       lower-token write can still commit);
 *   G3  committed writes' tokens never decrease (rules 1 + 2 above);
 *   G4  (GATE_FAIR) no request made while the raise waits is granted before the raise: the advance waits only for
 *       the transactions that held or asked for the lock before it;
 *   raise (GATE_FOREVER, LTL, checked with weak fairness: pan -a -f): the advance returns, <> (gFenced == 2), while
 *       the writers keep coming.
 * Broken variants, refuted by model/check:
 *   GATE_NO_REREAD    the shared check keeps what it read BEFORE waiting for the lock (a snapshot taken at the
 *                     statement's start), instead of reading the newest committed mark once it holds the lock;
 *   GATE_KEY_SHARE    the raise does not wait for the shared holders (PostgreSQL's FOR KEY SHARE, which an UPDATE
 *                     of a non-key column such as the token does not conflict with);
 *   (no GATE_FAIR)    with GATE_FOREVER: the row lock alone; refuted as a liveness violation (an acceptance cycle:
 *                     two writers take turns holding the share lock, and the raise never gets it). With
 *                     GATE_GAP_TO_RAISE the row goes to the waiting raise whenever no one holds it (a new sharer
 *                     joins only other sharers, as the issue measured), so the cycle is the overlap alone;
 *   GATE_CHECK_OWN_TX with GATE_CALLER_TX: the check runs in a transaction of its own, which commits (releasing its
 *                     locks) before the caller's writes commit in another (@Transactional + gate.write(...));
 *   GATE_CATCH_COMMIT with GATE_CALLER_TX: the caller catches StaleTokenException and commits anyway.
 * H2 has no shared row lock: there every check is the exclusive one, which is this protocol with the shared
 * path never chosen (a behaviour the search includes).
 */
#ifdef GATE_LOCKS
#ifndef GWRITERS
#define GWRITERS 3    /* threads of the old leader writing with token 1 */
#endif
#ifndef GWRITES
#define GWRITES  2    /* transactions per thread (with GATE_FOREVER: the old leader's are without end) */
#endif
#ifndef PROBE_GATE_SHARED
#define PROBE_GATE_SHARED 0  /* two writes of one token hold the mark at the same time */
#endif
#ifndef PROBE_GATE_WAITED
#define PROBE_GATE_WAITED 0  /* a raise waits for shared holders, and then a writer of the old token is refused */
#endif
#ifndef PROBE_GATE_QUEUED
#define PROBE_GATE_QUEUED 0  /* (GATE_FAIR) a writer's request queues behind the waiting raise */
#endif
#ifndef PROBE_CALLER_BEFORE
#define PROBE_CALLER_BEFORE 0  /* (GATE_CALLER_TX) a write made before the check is rolled back: the check was stale */
#endif

byte gMark = 1;      /* the committed mark: the old leader advanced to 1 before its threads started */
byte gX;             /* _pid + 1 of the transaction holding the mark row's exclusive lock; 0 = none */
byte gS;             /* how many transactions hold the mark row's shared lock */
byte gHi;            /* ghost: the highest token a committed write carried */
byte gFenced;        /* ghost: the highest token whose advance has returned */
bool gRaiseWaited;   /* ghost (probe): the raise found shared holders in its way */
byte gRaiser;        /* the raise's _pid */
bool gXWait;         /* the advance has begun and does not hold the row yet (read only with GATE_GAP_TO_RAISE) */

#define SH 1         /* lock modes */
#define EX 2

#ifdef GATE_FAIR
/* The advisory lock on the resource, with PostgreSQL's wait queue. */
#define QN (GWRITERS + 1)
byte aS;             /* shared holders */
bool aX;             /* an exclusive holder */
byte aQp[QN];        /* the wait queue, in arrival order: _pid ... */
byte aQm[QN];        /* ... and mode */
byte aQn;            /* waiting requests */
byte aQx;            /* of which exclusive */
bool aGot[GWRITERS + 2];   /* indexed by _pid (init 0, writers 1..GWRITERS, the raise GWRITERS + 1) */
bool aLate[GWRITERS + 2];  /* ghost (G4): the request was made while the raise waited */
bool gRaiseQ;        /* ghost: the raise waits in the queue */
byte ai, aj;          /* the wake-up's scratch (0 outside it) */
byte aheadX, aheadAny;  /* bools */

inline aGrant(p, m) {
    if
    :: m == SH -> aS++
    :: else -> aX = true
    fi;
    aGot[p] = true;
    if
    :: p == gRaiser -> gRaiseQ = false
    :: else -> assert(!(aLate[p] && gRaiseQ)); aLate[p] = false    /* G4 */
    fi
}

/* Request the advisory lock in mode m and wait until it is granted. */
inline aLock(m) {
    atomic {
        if
        :: (m == SH && !aX && aQx == 0) || (m == EX && !aX && aS == 0 && aQn == 0) ->
            if
            :: _pid != gRaiser -> aLate[_pid] = gRaiseQ   /* G4 covers the grants at once too */
            :: else
            fi;
            aGrant(_pid, m)
        :: else ->
            aQp[aQn] = _pid; aQm[aQn] = m; aQn++;
            if
            :: m == EX -> aQx++
            :: else
            fi;
            if
            :: _pid == gRaiser && gFenced == 0 -> gRaiseQ = true    /* the advance (not the new leader's writes) */
            :: _pid != gRaiser -> aLate[_pid] = gRaiseQ; PROBE(PROBE_GATE_QUEUED && gRaiseQ)
            :: else
            fi;
            printf("MSC: thread %d waits for the advisory lock (mode %d: 1 shared, 2 exclusive), %d waiting\n", _pid, m, aQn)
        fi;
        aGot[_pid]        /* while queued, atomicity is given up here: the others run */
    }
}

/* Release the advisory lock held in mode m (at commit or rollback), and wake the waiters (ProcLockWakeup); one
 * step of the releasing transaction's end (called inside its d_step). */
inline aUnlock(m) {
        aGot[_pid] = false;
        if
        :: m == SH -> aS--
        :: else -> aX = false
        fi;
        ai = 0; aj = 0; aheadX = false; aheadAny = false;
        do
        :: ai < aQn ->
            if
            :: (aQm[ai] == SH && !aX && !aheadX) || (aQm[ai] == EX && !aX && aS == 0 && !aheadAny) ->
                if
                :: aQm[ai] == EX -> aQx--
                :: else
                fi;
                aGrant(aQp[ai], aQm[ai])
            :: else ->
                aheadAny = true;
                if
                :: aQm[ai] == EX -> aheadX = true
                :: else
                fi;
                aQp[aj] = aQp[ai]; aQm[aj] = aQm[ai]; aj++
            fi;
            ai++
        :: else -> break
        od;
        do
        :: aj < aQn -> aQn--; aQp[aQn] = 0; aQm[aQn] = 0
        :: else -> break
        od;
        ai = 0; aj = 0; aheadX = false; aheadAny = false
}
#define ALOCK(m)   aLock(m); amode = m
#define AUNLOCK    if :: amode != 0 -> aUnlock(amode); amode = 0 :: else fi
#else
#define ALOCK(m)   skip
#define AUNLOCK    skip
#endif

/* A write with token t commits. */
inline gCommitWrite(t) {
    printf("MSC: thread %d COMMITS a write with token %d (mark %d)\n", _pid, t, gMark);
    assert(t >= gMark);      /* G1 */
    assert(t >= gFenced);    /* G2 */
    assert(t >= gHi);        /* G3 */
    gHi = t
}

/* The shared check; got = it holds the shared lock on a mark equal to t. */
inline gShared(t, got) {
#ifdef GATE_NO_REREAD
    atomic { seen = gMark; printf("MSC: thread %d's shared check reads mark %d\n", _pid, seen) };
    atomic {
        gX == 0 ->
        if
        :: seen == t -> gS++; got = true;
           printf("MSC: thread %d takes the shared lock on what it read before waiting (mark %d)\n", _pid, seen)
        :: else -> got = false
        fi
    }
#else
    atomic {
#ifdef GATE_GAP_TO_RAISE
        gX == 0 && (gS > 0 || !gXWait) ->   /* joins other sharers even while the raise waits, never a free row */
#else
        gX == 0 ->
#endif
        if
        :: gMark == t -> gS++; got = true;
           printf("MSC: thread %d shares the mark %d (%d holders)\n", _pid, t, gS);
           PROBE(PROBE_GATE_SHARED && gS >= 2)
        :: else -> got = false;
           printf("MSC: thread %d's shared check finds mark %d, not %d: the exclusive check next\n", _pid, gMark, t)
        fi
    }
#endif
}

/* The exclusive check; ok = it holds the exclusive lock and the mark is (about to be) t; else stale. */
inline gExclusive(t, ok) {
    atomic {
#ifdef GATE_KEY_SHARE
        gX == 0 ->
#elif defined(GATE_GAP_TO_RAISE)
        gX == 0 && gS == 0 && (_pid == gRaiser || !gXWait) ->
#else
        gX == 0 && gS == 0 ->
#endif
        if
        :: _pid == gRaiser -> gXWait = false
        :: else
        fi;
        if
        :: gMark <= t -> gX = _pid + 1; ok = true;
           printf("MSC: thread %d locks the mark exclusively (mark %d, token %d)\n", _pid, gMark, t)
        :: else -> ok = false;
           printf("MSC: thread %d is REFUSED: token %d, mark %d\n", _pid, t, gMark);
           PROBE(PROBE_GATE_WAITED && (gRaiseWaited && t < gMark))
        fi
    }
}

/* The check with token t, in the current transaction: passed = it holds a lock on a mark equal to t (or about to
 * be t: the exclusive lock); else stale. On the shared path it tries the shared check first. */
inline gCheck(t, shared, passed) {
    got = false; ok = false;
    if
    :: shared ->
        ALOCK(SH);
        gShared(t, got);
        if
        :: got -> passed = true
        :: else -> gExclusive(t, ok); passed = ok
        fi
    :: else ->
        ALOCK(EX);
        gExclusive(t, ok); passed = ok
    fi
}

/* The transaction ends: a commit keeps the caller's pending writes and the exclusive check's new mark; a rollback
 * keeps nothing. Either way every lock of the transaction is released. */
inline gEnd(t, commit) {
    d_step {
        if
        :: commit && pend > 0 -> gCommitWrite(t)
        :: else
        fi;
        if
        :: commit && gX == _pid + 1 -> gMark = t
        :: else
        fi;
        if
        :: gX == _pid + 1 -> gX = 0
        :: got -> gS--
        :: else
        fi;
        got = false; ok = false; pend = 0; passed = false; shared = false;   /* locals back to rest: fewer states */
        AUNLOCK
    }
}

#ifdef GATE_FOREVER
#define STALE skip           /* the writers keep coming: a refusal stops no one */
#else
#define STALE stale = true   /* StaleTokenException: this thread stops */
#endif

/* One transaction with token t; stale = the check refused t (StaleTokenException). */
inline gTx(t, stale) {
    passed = false;
    /* which check the gate tries first: what it remembers (the shared one, for a token it saw pass) */
    if
    :: shared = true
    :: shared = false
    fi;
#ifdef GATE_CALLER_TX
    if
    :: pend = 1; printf("MSC: thread %d writes with token %d BEFORE the check (uncommitted)\n", _pid, t)
    :: skip
    fi;
#ifdef GATE_CHECK_OWN_TX
    /* the check in a transaction of its own, committed before the caller's writes commit */
    keep = pend; pend = 0;
    gCheck(t, shared, passed);
    keep2 = passed;
    gEnd(t, keep2);
    passed = keep2; keep2 = false;
    pend = keep; keep = 0;
    printf("MSC: thread %d's check committed on its own (passed %d); its locks are released\n", _pid, passed);
#else
    gCheck(t, shared, passed);
#endif
    if
    :: passed ->
        if
        :: pend++; printf("MSC: thread %d writes with token %d after the check\n", _pid, t)
        :: skip
        fi;
        if
        :: gEnd(t, true)
        :: gEnd(t, false); printf("MSC: thread %d's caller rolls back\n", _pid)
        fi
    :: else ->
        STALE;
        PROBE(PROBE_CALLER_BEFORE && pend > 0);
#ifdef GATE_CATCH_COMMIT
        printf("MSC: thread %d's caller catches StaleTokenException and COMMITS\n", _pid);
        gEnd(t, true)
#else
        gEnd(t, false)
#endif
    fi
#else
    gCheck(t, shared, passed);
    if
    :: passed -> pend = 1; gEnd(t, true)    /* the gate's work (one write), then commit */
    :: else -> STALE; gEnd(t, false)         /* stale: roll back */
    fi
#endif
}

proctype GateWriter(byte t) {
    byte n, seen, pend, keep, amode;
    bool got, ok, passed, shared, stale, keep2;
#ifdef GATE_FOREVER
end_writer:
    do
    :: gTx(t, stale)         /* the old leader's threads keep coming, refused or not */
    od
#else
    do
    :: n < GWRITES && !stale -> n++; gTx(t, stale)
    :: else -> break
    od
#endif
}

/* The new leader: advance(t) (an exclusive check, commit, return), then its own transactions with t. */
proctype GateRaiser(byte t) {
    byte n, seen, pend, keep, amode;
    bool got, ok, passed, shared, stale, keep2;
    atomic {
        printf("MSC: advance(%d) begins (%d shared holders of the mark)\n", t, gS);
        gXWait = true;
        if
        :: gS > 0 -> gRaiseWaited = true
        :: else
        fi
    };
    ALOCK(EX);
    gExclusive(t, ok);
    if
    :: ok ->
        d_step { gMark = t; gX = 0; ok = false; AUNLOCK; printf("MSC: advance(%d) commits\n", t) };
        atomic { gFenced = t; printf("MSC: advance(%d) RETURNS\n", t) };
        do
        :: n < GWRITES && !stale -> n++; gTx(t, stale)
        :: else -> break
        od
    :: else -> AUNLOCK
    fi
}

#ifdef GATE_FOREVER
ltl raise { <> (gFenced == 2) }
#endif

init {
    atomic {
        byte i;
        for (i : 1 .. GWRITERS) { run GateWriter(1) }
        gRaiser = run GateRaiser(2)
    }
}
#endif
