package dev.leasehold.shedlock;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.OptionalLong;

/**
 * The token of the fenced lock the current thread's task holds (ShedLock runs the task on the locking thread).
 *
 * <p>ShedLock's {@code DefaultLockingTaskExecutor} (behind {@code @SchedulerLock} too) calls the provider's {@code lock}
 * on the thread that then runs the task, and unlocks in a {@code finally} on the same thread. So {@link
 * JdbcFencedLockProvider} and {@link ZookeeperFencedLockProvider} push every lock they grant on a stack of the
 * acquiring thread, and pop it when it is unlocked, in every path: the task returned or threw, the unlock's own write
 * failed, or an extension found the lock lost (expired and taken). The innermost lock wins; a lock taken again by
 * the same name inside its own task (which ShedLock runs without locking) gives the outer one's token. The thread's
 * stack is removed once empty, so a pooled scheduler thread never carries a token into its next task.
 *
 * <pre>{@code
 * @Scheduled(cron = "0 * * * * *")
 * @SchedulerLock(name = "nightly-batch", lockAtMostFor = "PT10M")
 * void nightlyBatch() {
 *     long token = FencedLocks.currentToken();
 *     gate.advance("batch-output", token);               // fence first
 *     gate.write("batch-output", token, tx -> { ... });  // StaleTokenException once a later holder advanced it
 * }
 * }</pre>
 *
 * <p>A lock used from another thread than the one that took it (say, a task handed to an executor) is not seen there:
 * pass the token along ({@link FencedSimpleLock#token()}). A lock unlocked on another thread leaves the acquiring
 * thread's stack at that thread's next call here.
 *
 * <p>Thread-safety: each thread sees only its own stack.
 */
public final class FencedLocks {

    /** Null when the thread holds nothing (no empty deque is left on a thread). */
    private static final ThreadLocal<Deque<HeldToken>> HELD = new ThreadLocal<>();

    private FencedLocks() {}

    /**
     * The token of the innermost fenced lock the current thread holds.
     *
     * @return the token
     * @throws IllegalStateException when the current thread holds no fenced lock (outside a locked task, or the lock
     *     was found lost by an extension)
     */
    public static long currentToken() {
        dropEnded();
        Deque<HeldToken> held = HELD.get();
        if (held == null) {
            throw new IllegalStateException("no fenced lock is held by this thread: FencedLocks.currentToken() works"
                    + " inside a task run under a lock of JdbcFencedLockProvider or ZookeeperFencedLockProvider, on"
                    + " the thread that took the lock");
        }
        return held.peekLast().token();
    }

    /**
     * The token of the innermost fenced lock named {@code lockName} that the current thread holds.
     *
     * @param lockName the lock's name, as in ShedLock's {@code LockConfiguration}
     * @return the token, or empty when this thread holds no fenced lock of that name
     * @throws IllegalArgumentException if {@code lockName} is null or blank
     */
    public static OptionalLong currentToken(String lockName) {
        if (lockName == null || lockName.isBlank()) {
            throw new IllegalArgumentException(
                    "lockName must not be null or blank, got " + (lockName == null ? "null" : "'" + lockName + "'"));
        }
        dropEnded();
        Deque<HeldToken> held = HELD.get();
        if (held != null) {
            for (Iterator<HeldToken> it = held.descendingIterator(); it.hasNext(); ) {
                HeldToken entry = it.next();
                if (entry.name().equals(lockName)) {
                    return OptionalLong.of(entry.token());
                }
            }
        }
        return OptionalLong.empty();
    }

    /** A lock just granted on this thread: on top of its stack until it ends. */
    static HeldToken push(String name, long token) {
        dropEnded();
        HeldToken entry = new HeldToken(name, token, Thread.currentThread());
        Deque<HeldToken> held = HELD.get();
        if (held == null) {
            held = new ArrayDeque<>();
            HELD.set(held);
        }
        held.addLast(entry);
        return entry;
    }

    /** Drops this thread's ended entries; removes the stack once empty. */
    static void dropEnded() {
        Deque<HeldToken> held = HELD.get();
        if (held == null) {
            return;
        }
        held.removeIf(HeldToken::ended);
        if (held.isEmpty()) {
            HELD.remove();
        }
    }
}
