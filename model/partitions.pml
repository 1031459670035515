/*
 * FencedPartitions' hand-over, as a Promela model for SPIN: two members, one partition that moves between them.
 *
 * ZooKeeper (abstracted as in leasehold.pml: one linearizable server, a zxid that counts creates, sessions the
 * server may expire at any step, deleting their ephemeral nodes in the same transaction), the target (which member
 * should hold the partition: it flips at any step, as rebalances do), two members, and the partition's fenced
 * resource (FenceGate: the token check and the write in one atomic step).
 *
 * A member (FencedPartitions):
 *   - targeted for the partition, it creates its own ephemeral-sequential node under the partition;
 *   - it holds the partition when its node is the lowest and owned by its current session; token = czxid;
 *     it fences first, then writes through the gate (a rejected write makes it stop);
 *   - targeted away while holding, lost(p, REBALANCED) runs and returns (its work stopped), and only then is
 *     its node deleted;
 *   - it learns that its session expired only later, at a step of its choosing (until then it still writes with
 *     its old token), then joins again with a new session.
 *
 * Broken variants, which model/check must refute:
 *   EARLY_RELEASE   the node is deleted before lost() returned: the next member takes over while the old one works
 *   TARGET_ONLY     a member takes the partition because the computed target names it, without its node being the
 *                   lowest (ownership by the assignment alone: two members that read different targets both hold)
 *   NO_FENCE        writes are not checked at the resource (only matters after a session expiry)
 *
 * Properties:
 *   handover   a member is granted the partition only while no other member holds it with a live session (so,
 *              without a session expiry, the partition moves only after the old holder's lost() returned)
 *   rule 1 + 2 a write commits only with a token >= every token already committed (the late write of a paused
 *              holder whose session expired is refused)
 *   rule 5     tokens of the partition strictly increase across grants
 */

#ifndef MAXFLIPS
#define MAXFLIPS    4   /* rebalances: the target changes member */
#endif
#ifndef MAXEXPIRIES
#define MAXEXPIRIES 2   /* sessions the server expires */
#endif
#ifndef MAXNODES
#define MAXNODES    6   /* partition nodes created in all */
#endif
#ifndef WRITES
#define WRITES      1   /* writes per grant, after fencing first */
#endif
#ifndef PROBE_LATE_WRITE
#define PROBE_LATE_WRITE 0 /* a write of a holder whose session expired is refused by the fence */
#endif
#define PROBE(reached) assert(!(reached))

#define NM 2
#define OTHER(m) (1 - m)

byte zxid;                 /* counts creates: czxids */
byte seqctr;               /* the partition's sequence counter */
byte created;
bool nAlive[NM];           /* each member's own node (at most one at a time) */
byte nSeq[NM];
byte nCz[NM];
byte nOwner[NM];           /* ephemeralOwner: a session id */

bool sAlive[5];            /* server-side sessions 1..4 */
byte sess[NM];             /* each member's current session, as its client believes */
byte nextSess = 3;
byte expiries;

byte target;               /* the member the stored assignment names */
byte flips;

bool hold[NM];             /* the member believes it holds the partition (acquired told, lost not yet returned) */
byte tok[NM];
byte holdSess[NM];
byte writes[NM];

byte fence;                /* the resource's highest token */
byte hiWrite;              /* the highest token a committed write carried */
byte lastGrant;

#define LOWEST(m) (nAlive[m] && !(nAlive[OTHER(m)] && nSeq[OTHER(m)] < nSeq[m]))

inline grant(m, t) {
    /* handover: nobody else holds the partition with a live session */
    assert(!(hold[OTHER(m)] && sAlive[holdSess[OTHER(m)]]));
    /* rule 5 */
    assert(t > lastGrant);
    lastGrant = t; hold[m] = true; tok[m] = t; holdSess[m] = sess[m]; writes[m] = 0;
    printf("MSC: member %d ACQUIRES the partition with token %d\n", m, t)
}

proctype Member(byte m) {
end:
    do
    /* targeted: create our node (one create; its answer carries czxid and owner) */
    :: atomic {
           target == m && !nAlive[m] && !hold[m] && sAlive[sess[m]] && created < MAXNODES ->
           zxid++; seqctr++; created++;
           nAlive[m] = true; nSeq[m] = seqctr; nCz[m] = zxid; nOwner[m] = sess[m];
           printf("MSC: member %d creates its node, czxid %d\n", m, zxid)
       }
    /* our node is the lowest and ours: the partition is ours */
    :: atomic { !hold[m] && LOWEST(m) && nOwner[m] == sess[m] && sAlive[sess[m]] -> grant(m, nCz[m]) }
#ifdef TARGET_ONLY
    /* broken: the target names us, so we take it (a token of our node, lowest or not) */
    :: atomic { !hold[m] && target == m && nAlive[m] && nOwner[m] == sess[m] -> grant(m, nCz[m]) }
#endif
    /* a write through the gate: the check and the write in one step; refused: the member stops */
    :: atomic {
           hold[m] && writes[m] < WRITES ->
           writes[m]++;
#ifdef NO_FENCE
           if :: true ->
#else
           if
           :: tok[m] >= fence ->
#endif
                  if :: tok[m] > fence -> fence = tok[m] :: else fi;
                  assert(tok[m] >= hiWrite);     /* rules 1 + 2 */
                  hiWrite = tok[m];
                  printf("MSC: member %d WRITES with token %d\n", m, tok[m])
#ifndef NO_FENCE
           :: else ->
                  PROBE(PROBE_LATE_WRITE && !sAlive[holdSess[m]]);
                  printf("MSC: member %d's write with token %d REFUSED (fence %d): it stops writing\n", m, tok[m], fence);
                  writes[m] = WRITES
#endif
           fi
       }
    /* targeted away while holding: lost(p, REBALANCED) runs and returns, then the node goes */
#ifdef EARLY_RELEASE
    :: atomic { hold[m] && target != m && nAlive[m] && nOwner[m] == sess[m] ->
                nAlive[m] = false; printf("MSC: member %d deletes its node BEFORE lost() returned\n", m) }
    :: atomic { hold[m] && target != m && !nAlive[m] -> hold[m] = false; printf("MSC: member %d: lost() returns\n", m) }
#else
    /* one step of the recipe's thread: withdraw, lost() runs and returns, delete (nothing of this member between) */
    :: atomic { hold[m] && target != m ->
                hold[m] = false; printf("MSC: member %d: lost(REBALANCED) returned\n", m);
                if :: nAlive[m] && nOwner[m] == sess[m] -> nAlive[m] = false; printf("MSC: member %d deletes its node\n", m)
                   :: else fi }
#endif
    :: atomic { !hold[m] && nAlive[m] && target != m && nOwner[m] == sess[m] ->
                nAlive[m] = false; printf("MSC: member %d deletes its node\n", m) }
    /* the client learns its session expired: lost(p, LOST), then a new session */
    :: atomic { !sAlive[sess[m]] && nextSess <= 4 ->
                hold[m] = false; sess[m] = nextSess; sAlive[nextSess] = true; nextSess++;
                printf("MSC: member %d learns its session expired: LOST, new session %d\n", m, sess[m]) }
    od
}

active proctype Environment() {
end:
    do
    /* a rebalance: the target names the other member */
    :: atomic { flips < MAXFLIPS -> target = 1 - target; flips++; printf("MSC: REBALANCE: target is member %d\n", target) }
    /* the server expires a session: its ephemeral nodes go in the same transaction */
    :: atomic {
           expiries < MAXEXPIRIES && sAlive[sess[0]] ->
           expiries++; sAlive[sess[0]] = false;
           if :: nAlive[0] && nOwner[0] == sess[0] -> nAlive[0] = false :: else fi;
           printf("MSC: ZooKeeper EXPIRES member 0's session\n")
       }
    :: atomic {
           expiries < MAXEXPIRIES && sAlive[sess[1]] ->
           expiries++; sAlive[sess[1]] = false;
           if :: nAlive[1] && nOwner[1] == sess[1] -> nAlive[1] = false :: else fi;
           printf("MSC: ZooKeeper EXPIRES member 1's session\n")
       }
    od
}

init {
    atomic {
        sAlive[1] = true; sAlive[2] = true; sess[0] = 1; sess[1] = 2;
        run Member(0); run Member(1)
    }
}
