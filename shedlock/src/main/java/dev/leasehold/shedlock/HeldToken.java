package dev.leasehold.shedlock;

/**
 * One grant's entry in {@link FencedLocks}: the name and token of a lock acquired on {@link #owner}'s thread, shared by
 * every handle of the grant (the acquisition and its extensions). Ended once, by the unlock of its last handle or by
 * an extension that found the lock lost, on whichever thread that ran; the owner's thread drops ended entries at its
 * next call into {@link FencedLocks}.
 *
 * <p>Thread-safety: {@link #end} from any thread; the rest is immutable.
 */
final class HeldToken {

    private final String name;
    private final long token;
    private final Thread owner;
    private volatile boolean ended;

    HeldToken(String name, long token, Thread owner) {
        this.name = name;
        this.token = token;
        this.owner = owner;
    }

    String name() {
        return name;
    }

    long token() {
        return token;
    }

    boolean ended() {
        return ended;
    }

    /** Ends the entry; on its owner's thread it also leaves that thread's stack at once. */
    void end() {
        ended = true;
        if (Thread.currentThread() == owner) {
            FencedLocks.dropEnded();
        }
    }
}
