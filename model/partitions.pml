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
 *     its old token), then joins again with a new session;
 *   - the stall hand-off (progress deadline): the holder's work stops making progress, so its token is withdrawn (the
 *     timer's step); lost(p, STALLED) runs and returns WITHOUT waiting for the stuck work, which may still write
 *     later with the old token; only then is its node deleted (one step of the recipe's thread); then it reads the
 *     live members and the target (znode data and version) and writes the target with p handed to the other live
 *     member, version-checked: a write that finds another version reads again and retries. If the target it read
 *     does not name it, or the other member is not live, it writes nothing, and joins p again while the target names
 *     it (alone: a new node, a higher token).
 *
 * The target is a znode with a version. A rebalance (the smallest member's version-checked write, which succeeds
 * only on the version it read) is one atomic step that sets the target and bumps the version.
 *
 * Broken variants, which model/check must refute:
 *   EARLY_RELEASE   the node is deleted before lost() returned: the next member takes over while the old one works
 *   TARGET_ONLY     a member takes the partition because the computed target names it, without its node being the
 *                   lowest (ownership by the assignment alone: two members that read different targets both hold)
 *   NO_FENCE        writes are not checked at the resource (only matters after a session expiry)
 *   STALL_EARLY_DELETE  the stalled holder's node is deleted before lost(p, STALLED) is told: the other member takes
 *                   p while the stalled member's listener still believes it holds p
 *   UNVERSIONED     the hand-off writes the target without the version check: it can undo a rebalance (or another
 *                   hand-off) written between its read and its write
 *
 * Properties:
 *   handover   a member is granted the partition only while no other member holds it with a live session (so,
 *              without a session expiry, the partition moves only after the old holder's lost() returned)
 *   rule 1 + 2 a write commits only with a token >= every token already committed (the late write of a paused
 *              holder whose session expired is refused)
 *   rule 5     tokens of the partition strictly increase across grants
 *   no lost update  a write of the target replaces only the version it was computed from
 *   held again  when nothing more can happen (every bounded fault spent, every member at rest), the member the target
 *              names holds the partition with a live session (after a stall too: the partition is held again)
 *
 * Ownership never depends on the target (the nodes decide), so a lost update of the target breaks no hand-over or
 * fence property by itself: it costs a hand-off undone (the stalled member is targeted for p again) or a rebalance
 * undone until the smallest member writes again. The no-lost-update property is what refutes UNVERSIONED.
 */

#ifndef MAXFLIPS
#define MAXFLIPS    4   /* rebalances: the target changes member */
#endif
#ifndef MAXEXPIRIES
#define MAXEXPIRIES 2   /* sessions the server expires */
#endif
#ifndef MAXNODES
#define MAXNODES    10  /* partition nodes created in all: more than the faults can make (asserted) */
#endif
#ifndef WRITES
#define WRITES      1   /* writes per grant, after fencing first */
#endif
#ifndef MAXSTALLS
#define MAXSTALLS   0   /* grants whose work stalls (the progress deadline passes); model/check's stall checks: 1 */
#endif
#ifndef PROBE_LATE_WRITE
#define PROBE_LATE_WRITE 0 /* a write of a holder whose session expired is refused by the fence */
#endif
#ifndef PROBE_STUCK_WRITE
#define PROBE_STUCK_WRITE 0 /* a stalled grant's stuck work writes after the partition was handed off: refused */
#endif
#ifndef PROBE_STALL_ALONE
#define PROBE_STALL_ALONE 0 /* a stalled member finds the other member gone: it hands nothing off and joins p again */
#endif
#ifndef PROBE_HANDOFF_RETRY
#define PROBE_HANDOFF_RETRY 0 /* a hand-off's versioned write finds another version, reads again and hands off */
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
byte tver;                 /* the target znode's version */
byte flips;
bool mAlive[NM];           /* each member's member node (ephemeral, its current session's) */

bool hold[NM];             /* the member believes it holds the partition (acquired told, lost not yet returned) */
byte tok[NM];
byte holdSess[NM];
byte writes[NM];

/* the stall hand-off */
byte stalls;
bool stalling[NM];         /* token withdrawn for want of progress, lost(p, STALLED) not yet told */
byte stuckTok[NM];         /* the stalled grant's token, still in its stuck work's hands (0: none): one late write */
byte phase[NM];            /* hand-off: 0 none, 1 read the members and the target, 2 write the target */
byte hTarget[NM];          /* the target, its version and the other member's liveness, as the hand-off read them */
byte hVer[NM];
bool hOther[NM];
bool retried;              /* ghost (PROBE_HANDOFF_RETRY only): a hand-off's write found another version */

byte fence;                /* the resource's highest token */
byte hiWrite;              /* the highest token a committed write carried */
byte lastGrant;

#define LOWEST(m) (nAlive[m] && !(nAlive[OTHER(m)] && nSeq[OTHER(m)] < nSeq[m]))

/* lost(p, STALLED) returned: the stuck work keeps the token and may still write */
inline STUCK(m) {
    stalling[m] = false; stuckTok[m] = tok[m]
}

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
           phase[m] == 0 && target == m && !nAlive[m] && !hold[m] && sAlive[sess[m]] ->
           assert(created < MAXNODES);   /* the node bound never binds (so it hides no behaviour) */
           zxid++; seqctr++; created++;
           nAlive[m] = true; nSeq[m] = seqctr; nCz[m] = zxid; nOwner[m] = sess[m];
           printf("MSC: member %d creates its node, czxid %d\n", m, zxid)
       }
    /* our node is the lowest and ours: the partition is ours */
    :: atomic { phase[m] == 0 && !hold[m] && LOWEST(m) && nOwner[m] == sess[m] && sAlive[sess[m]] -> grant(m, nCz[m]) }
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
    :: atomic { !stalling[m] && hold[m] && target != m && nAlive[m] && nOwner[m] == sess[m] ->
                nAlive[m] = false; printf("MSC: member %d deletes its node BEFORE lost() returned\n", m) }
    :: atomic { !stalling[m] && hold[m] && target != m && !nAlive[m] -> hold[m] = false; printf("MSC: member %d: lost() returns\n", m) }
#else
    /* one step of the recipe's thread: withdraw, lost() runs and returns, delete (nothing of this member between) */
    :: atomic { !stalling[m] && hold[m] && target != m ->
                hold[m] = false; printf("MSC: member %d: lost(REBALANCED) returned\n", m);
                if :: nAlive[m] && nOwner[m] == sess[m] -> nAlive[m] = false; printf("MSC: member %d deletes its node\n", m)
                   :: else fi }
#endif
    :: atomic { phase[m] == 0 && !hold[m] && nAlive[m] && target != m && nOwner[m] == sess[m] ->
                nAlive[m] = false; printf("MSC: member %d deletes its node\n", m) }
    /* the client learns its session expired: lost(p, LOST) (or STALLED first, if the stall's loss was queued), then
       a new session and its member node again; a pending hand-off goes on in the new session */
    :: atomic { !sAlive[sess[m]] && nextSess <= 4 ->
                if :: stalling[m] && hold[m] -> STUCK(m); phase[m] = 1 :: else fi;
                hold[m] = false; sess[m] = nextSess; sAlive[nextSess] = true; nextSess++; mAlive[m] = true;
                printf("MSC: member %d learns its session expired: LOST, new session %d\n", m, sess[m]) }

    /* ---- the stall hand-off ---- */
    /* the progress deadline passed (the timer's step): the token is withdrawn, the loss queued; the work is stuck */
    :: atomic { hold[m] && !stalling[m] && stalls < MAXSTALLS ->
                stalls++; stalling[m] = true;
                printf("MSC: member %d's work made no progress: token %d withdrawn\n", m, tok[m]) }
#ifdef STALL_EARLY_DELETE
    /* broken: the node goes first, lost(p, STALLED) is told after */
    :: atomic { stalling[m] && hold[m] && nAlive[m] && nOwner[m] == sess[m] && sAlive[sess[m]] ->
                nAlive[m] = false; printf("MSC: member %d deletes its node BEFORE lost(STALLED) is told\n", m) }
    :: atomic { stalling[m] && hold[m] && !(nAlive[m] && nOwner[m] == sess[m]) && sAlive[sess[m]] ->
                STUCK(m); hold[m] = false; phase[m] = 1;
                printf("MSC: member %d: lost(STALLED) returned (its work still stuck)\n", m) }
#else
    /* one step of the recipe's thread: lost(p, STALLED) runs and returns without waiting for the stuck work, then
       our node is deleted */
    :: atomic { stalling[m] && hold[m] && sAlive[sess[m]] ->
                STUCK(m); hold[m] = false; phase[m] = 1;
                printf("MSC: member %d: lost(STALLED) returned (its work still stuck)\n", m);
                if :: nAlive[m] && nOwner[m] == sess[m] -> nAlive[m] = false; printf("MSC: member %d deletes its node\n", m)
                   :: else fi }
#endif
    /* read the live members and the target (data and version) */
    :: atomic { phase[m] == 1 && sAlive[sess[m]] ->
                hTarget[m] = target; hVer[m] = tver; hOther[m] = mAlive[OTHER(m)]; phase[m] = 2 }
    /* write the target with p handed to the other member, if the target read names us and the other is live */
    :: atomic {
           phase[m] == 2 && sAlive[sess[m]] ->
           if
           :: hTarget[m] != m || !hOther[m] ->
                  PROBE(PROBE_STALL_ALONE && (hTarget[m] == m && !hOther[m]));
                  phase[m] = 0; hTarget[m] = 0; hVer[m] = 0; hOther[m] = false;
                  printf("MSC: member %d hands nothing off (not named, or alone): it joins again if named\n", m)
#ifdef UNVERSIONED
           :: else ->
#else
           :: hTarget[m] == m && hOther[m] && tver == hVer[m] ->
#endif
                  assert(tver == hVer[m]);     /* no lost update */
                  PROBE(PROBE_HANDOFF_RETRY && retried);
                  target = OTHER(m); tver++; phase[m] = 0; hTarget[m] = 0; hVer[m] = 0; hOther[m] = false;
                  printf("MSC: member %d HANDS the partition OFF: target is member %d (version %d)\n", m, target, tver)
#ifndef UNVERSIONED
           :: hTarget[m] == m && hOther[m] && tver != hVer[m] ->
                  retried = PROBE_HANDOFF_RETRY; phase[m] = 1;
                  printf("MSC: member %d's hand-off found version %d, read %d: it reads again\n", m, tver, hVer[m])
#endif
           fi
       }
    /* the stuck work wakes up and writes with the stalled grant's token (then it is gone: its token forgotten) */
    :: atomic {
           stuckTok[m] > 0 ->
#ifdef NO_FENCE
           if :: true ->
#else
           if
           :: stuckTok[m] >= fence ->
#endif
                  if :: stuckTok[m] > fence -> fence = stuckTok[m] :: else fi;
                  assert(stuckTok[m] >= hiWrite);     /* rules 1 + 2 */
                  hiWrite = stuckTok[m];
                  printf("MSC: member %d's stuck work WRITES with token %d\n", m, stuckTok[m])
#ifndef NO_FENCE
           :: else ->
                  PROBE(PROBE_STUCK_WRITE);
                  printf("MSC: member %d's stuck work's write with token %d REFUSED (fence %d)\n", m, stuckTok[m], fence)
#endif
           fi;
           stuckTok[m] = 0
       }
    od
}

active proctype Environment() {
end:
    do
    /* a rebalance: the target names the other member */
    :: atomic { flips < MAXFLIPS -> target = 1 - target; tver++; flips++; printf("MSC: REBALANCE: target is member %d\n", target) }
    /* the server expires a session: its ephemeral nodes go in the same transaction */
    :: atomic {
           expiries < MAXEXPIRIES && sAlive[sess[0]] ->
           expiries++; sAlive[sess[0]] = false; mAlive[0] = false;
           if :: nAlive[0] && nOwner[0] == sess[0] -> nAlive[0] = false :: else fi;
           printf("MSC: ZooKeeper EXPIRES member 0's session\n")
       }
    :: atomic {
           expiries < MAXEXPIRIES && sAlive[sess[1]] ->
           expiries++; sAlive[sess[1]] = false; mAlive[1] = false;
           if :: nAlive[1] && nOwner[1] == sess[1] -> nAlive[1] = false :: else fi;
           printf("MSC: ZooKeeper EXPIRES member 1's session\n")
       }
    od
}

/* held again: when nothing more can happen, the member the target names holds the partition with a live session */
active proctype Quiescence() {
    timeout ->
        assert(hold[target] && sAlive[holdSess[target]] && sess[target] == holdSess[target]);
        printf("MSC: at rest: member %d holds the partition\n", target)
}

init {
    atomic {
        sAlive[1] = true; sAlive[2] = true; sess[0] = 1; sess[1] = 2; mAlive[0] = true; mAlive[1] = true;
        run Member(0); run Member(1)
    }
}
