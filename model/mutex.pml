/*
 * Leasehold's FencedMutex (issue 45), as a Promela model for SPIN: what the mutex adds to the election.
 *
 * A hold IS the election's grant: Curator's InterProcessMutex creates a protected EPHEMERAL_SEQUENTIAL lock node
 * (`_c_<uuid>-lock-<seq>`, the uuid new for every create), the hold begins when that node is the lowest child and
 * owned by the client's current session, and its token is the node's czxid; a loss (SUSPENDED or LOST) withdraws
 * the token at once. leasehold.pml checks that protocol (token read, fence, expiry, reaping) for the latch. What
 * differs, and is modelled here:
 *   reentrancy        a nested acquire by the holding thread takes no new node and returns the same token; only
 *                     the outermost release deletes the node;
 *   release after loss release() after a loss removes the node if it is still there (a SUSPENDED client whose
 *                     session lives on) and otherwise deletes nothing; the holder then acquires again, in the same
 *                     session (reconnected) or a new one;
 *   no watch on a hold Curator's mutex does not watch its own node once held: a holder whose node someone else
 *                     deleted goes on believing it holds until its session tells it otherwise.
 *
 * ZooKeeper is abstracted as in leasehold.pml: a zxid counting creates (node n's czxid is n + 1), ephemeral
 * sequential nodes with a sequence number from the parent's counter, sessions the server may expire at any step
 * (deleting their nodes), and a container parent that, once empty, may be reaped (its sequence counter restarts at
 * 0). A node's NAME is its protection uuid with its sequence number, so in the design two nodes never share a name,
 * and a delete by name is a delete of that one node.
 *
 * Broken variant, refuted by model/check:
 *   RELEASE_BY_NAME   the lock nodes carry no per-create uuid (`lock-<seq>`), so a release deletes whatever node
 *                     now has its node's name: after its session expired and the empty parent was reaped, that is
 *                     another holder's node with the same sequence number.
 *
 * Properties (assertions):
 *   M1  mutual exclusion: a hold is granted only while no other holder still holds (its token not withdrawn) with a
 *       session the server keeps (a holder whose session expired unnoticed is the fence's case, not the lock's);
 *   M2  reentrancy: a nested acquire returns the hold's token and creates no node;
 *   rule 5  successive holds carry strictly increasing tokens;
 *   rules 1 + 2  a write commits only with a token >= every token committed before it (the gate, one atomic step
 *       here: its lock protocol is leasehold.pml's GATE_LOCKS).
 */

#define NP          2   /* holders (threads of two processes, each with its own client) */
#ifndef MAXNODES
#define MAXNODES    4   /* lock nodes created in all (5: 1,041,522 states, 3.3 times as many) */
#endif
#ifndef MAXEXPIRIES
#define MAXEXPIRIES 1   /* sessions the server expires */
#endif
#ifndef MAXSUSP
#define MAXSUSP     1   /* losses on SUSPENDED (the session lives on; the node stays until released) */
#endif
#ifndef MAXREAPS
#define MAXREAPS    1   /* times the empty container parent is reaped */
#endif
#define NODESLOTS   5
#if MAXNODES > NODESLOTS
#error "MAXNODES must be at most NODESLOTS"
#endif
#define NONE        255

#ifndef PROBE_MUTEX_LATE_WRITE
#define PROBE_MUTEX_LATE_WRITE 0  /* a write in flight with a withdrawn token is refused: the next holder fenced */
#endif
#ifndef PROBE_MUTEX_NESTED_LOSS
#define PROBE_MUTEX_NESTED_LOSS 0 /* a loss while nested: the inner release deletes nothing, the outer one the node */
#endif
#ifndef PROBE_MUTEX_SUSPENDED_RELEASE
#define PROBE_MUTEX_SUSPENDED_RELEASE 0 /* release after a SUSPENDED loss deletes the node it still has */
#endif
#define PROBE(reached) assert(!(reached))

byte nnodes;                 /* nodes created so far = the last czxid */
bool nAlive[NODESLOTS];
byte nSess[NODESLOTS];       /* ephemeralOwner */
byte nSeq[NODESLOTS];        /* sequence suffix */
byte seqctr, live;
bool sAlive[5];              /* sessions 1..4 */
byte nextSess, expiries, susps, reaps;

bool held[NP];               /* the holder's token is current (not withdrawn) */
byte hSess[NP];              /* the session it holds in */
byte lastGrant;              /* ghost: the token of the last hold */
byte mark;                   /* the fence's mark */
byte hiWrite;                /* ghost: the highest token a committed write carried */

#define CZXID(n)     (n + 1)
#define BELOW(m, n)  (nAlive[m] && nSeq[m] < nSeq[n])
#define LOWEST(n)    (n != NONE && nAlive[n] && !BELOW(0, n) && !BELOW(1, n) && !BELOW(2, n) \
                      && !BELOW(3, n) && !BELOW(4, n))

inline delete(n) {
    nAlive[n] = false; live--
}

/* The fenced write with token t: one atomic step of the gate (check, write, commit). */
inline write(t) {
    if
    :: mark <= t ->
        assert(t >= hiWrite);                        /* rules 1 + 2 */
        mark = t; hiWrite = t;
        printf("MSC: H%d COMMITS a write with token %d\n", p, t)
    :: else ->
        printf("MSC: H%d's write with token %d is REFUSED (mark %d)\n", p, t, mark);
        PROBE(PROBE_MUTEX_LATE_WRITE && !held[p])
    fi
}

/* release() at depth 0: delete our lock node if it is still there. */
inline releaseNode() {
#ifdef RELEASE_BY_NAME
    /* the node is found by its name, lock-<seq>: whatever node has that name now */
    i = 0;
    do
    :: i < NODESLOTS ->
        if
        :: nAlive[i] && nSeq[i] == nSeq[mine] ->
            if
            :: i != mine -> printf("MSC: H%d's release deletes node %d (session %d): it has its node's name lock-%d\n", p, i, nSess[i], nSeq[i])
            :: else -> printf("MSC: H%d releases node %d\n", p, i)
            fi;
            delete(i)
        :: else
        fi;
        i++
    :: else -> break
    od;
    i = 0
#else
    /* the node's own name (its protection uuid is new for every create): that node or nothing */
    if
    :: nAlive[mine] ->
        printf("MSC: H%d releases node %d\n", p, mine);
        PROBE(PROBE_MUTEX_SUSPENDED_RELEASE && !held[p]);
        delete(mine)
    :: else -> printf("MSC: H%d's node %d is gone already: release deletes nothing\n", p, mine)
    fi
#endif
}

proctype Holder(byte p; byte s) {
    byte mine = NONE;   /* the node of the current acquire */
    byte tok;           /* the hold's token (kept after a loss for a write in flight) */
    byte depth;         /* nested acquires of the holding thread */
    byte before, i;
    bool late;          /* a write in flight after the loss was made */

acquire:
    if
    :: atomic {
           sAlive[s] && nnodes < MAXNODES ->
           mine = nnodes; nnodes++;
           nAlive[mine] = true; nSess[mine] = s; nSeq[mine] = seqctr; seqctr++; live++;
           printf("MSC: H%d creates node %d (lock-%d, czxid %d) in session %d\n", p, mine, nSeq[mine], CZXID(mine), s)
       }
    :: atomic { !sAlive[s] -> goto newsession }      /* the create fails: the session is gone */
    :: atomic { nnodes >= MAXNODES -> goto done }
    fi;

    /* InterProcessMutex waits until its node is the lowest; FencedMutex reads the token in the same verified read
     * as the latch (the lowest child, owned by our current session): one atomic step */
    do
    :: atomic {
           LOWEST(mine) && nSess[mine] == s ->
           tok = CZXID(mine); depth = 1;
           printf("MSC: H%d HOLDS the lock with token %d (node %d, session %d)\n", p, tok, mine, s);
           assert(!(held[1 - p] && sAlive[hSess[1 - p]]));   /* M1 */
           assert(tok > lastGrant);                          /* rule 5 */
           lastGrant = tok; held[p] = true; hSess[p] = s;
           mark = (mark > tok -> mark : tok);                /* fence first: advance (atomic here) */
           break
       }
    :: atomic { !sAlive[s] -> printf("MSC: H%d's acquire ends: session %d is gone\n", p, s); goto newsession }
    od;

    do
    :: atomic {
           depth == 1 ->
           before = nnodes; depth = 2;
           printf("MSC: H%d acquires again (nested): token %d\n", p, tok);
           assert(nnodes == before && tok == CZXID(mine));   /* M2 */
           before = 0
       }
    :: atomic { depth == 2 -> depth = 1; printf("MSC: H%d's inner release: the node stays\n", p) }
    :: atomic { write(tok) }
    :: atomic { depth == 1 -> releaseNode(); held[p] = false; depth = 0; goto acquire }
    /* LOST: the client learns the server expired its session; the token is withdrawn at once */
    :: atomic { !sAlive[s] -> held[p] = false; printf("MSC: H%d LOSES the lock: session %d expired\n", p, s); break }
    /* SUSPENDED: the connection is lost; the token is withdrawn at once, the session (and the node) may live on */
    :: atomic {
           susps < MAXSUSP -> susps++; held[p] = false;
           printf("MSC: H%d LOSES the lock: SUSPENDED (session %d kept by the server: %d)\n", p, s, sAlive[s]);
           break
       }
    od;

    /* after the loss: a write already in flight may still reach the gate (once), and the holder releases its
     * nested acquires; the outermost release removes the node if it is still there */
    do
    :: atomic { !late -> late = true; write(tok) }
    :: atomic {
           depth == 2 -> depth = 1;
           printf("MSC: H%d's inner release after the loss: the node stays\n", p);
           PROBE(PROBE_MUTEX_NESTED_LOSS)
       }
    :: atomic { depth == 1 -> releaseNode(); depth = 0; break }
    od;
    late = false;
    if
    :: atomic { sAlive[s] -> printf("MSC: H%d reconnected in session %d\n", p, s); goto acquire }
    :: else
    fi;

newsession:
    atomic {
        nextSess++; s = nextSess; sAlive[s] = true;
        printf("MSC: H%d starts session %d\n", p, s);
        goto acquire
    };

done:
    skip
}

inline expire(x) {
    sAlive[x] = false; expiries++;
    i = 0;
    do
    :: i < NODESLOTS ->
        if
        :: nAlive[i] && nSess[i] == x -> delete(i)
        :: else
        fi;
        i++
    :: else -> break
    od;
    i = 0;
    printf("MSC: ZooKeeper EXPIRES session %d\n", x)
}

#define EXPIRE_OPTION(x) :: d_step { expiries < MAXEXPIRIES && sAlive[x] -> expire(x) }

active proctype ZooKeeper() {
    byte i;
end_server:
    do
    EXPIRE_OPTION(1)
    EXPIRE_OPTION(2)
    EXPIRE_OPTION(3)
    EXPIRE_OPTION(4)
    :: d_step {
           reaps < MAXREAPS && live == 0 && seqctr > 0 ->
           reaps++; seqctr = 0; printf("MSC: ZooKeeper REAPS the empty parent: sequence restarts at 0\n")
       }
    od
}

init {
    atomic {
        sAlive[1] = true; sAlive[2] = true; nextSess = 2;
        run Holder(0, 1); run Holder(1, 2)
    }
}
