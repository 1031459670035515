package dev.leasehold.recipes;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The grant of a {@link FencedLeaderSelector}: the token its leader's work holds, swapped by compareAndSet so that a
 * token read that a loss raced is simply discarded, and the last grant withdrawn. Package-private: copied with the
 * selector.
 *
 * <p>Any thread; never blocks. A grant is made only on the selector's own thread; a withdrawal happens at once on any
 * thread.
 */
final class SelectorGrant {

    /** Replaced, never mutated: identity is what compareAndSet compares. */
    record Grant(FencingToken token, long generation) {}

    /** The last grant withdrawn, and why. */
    private record Withdrawal(FencingToken token, LossCause cause) {}

    private final AtomicReference<Grant> grant = new AtomicReference<>(new Grant(null, 0));
    private volatile Withdrawal lastWithdrawal;

    /** @return the grant now, to be handed back to {@link #grant(Grant, FencingToken)} after the token read */
    Grant observe() {
        return grant.get();
    }

    /** @return the token of the current grant, or null */
    FencingToken token() {
        return grant.get().token();
    }

    /**
     * Makes {@code token} the current grant, unless the grant changed since {@code observed} was read.
     *
     * @return {@code false} if a loss while reading bumped the generation: the read is void
     */
    boolean grant(Grant observed, FencingToken token) {
        return grant.compareAndSet(observed, new Grant(token, observed.generation() + 1));
    }

    /** Ends the grant of {@code token} if it is still the current one (the work returned), recording no withdrawal. */
    void end(FencingToken token) {
        Grant current = grant.get();
        if (current.token() == token) {
            grant.compareAndSet(current, new Grant(null, current.generation() + 1));
        }
    }

    /**
     * Ends the current grant and voids token reads in flight; if a token was held, records why it was withdrawn.
     *
     * @return the token withdrawn, or null if none was held
     */
    FencingToken withdraw(LossCause cause) {
        Grant current;
        do {
            current = grant.get();
        } while (!grant.compareAndSet(current, new Grant(null, current.generation() + 1)));
        if (current.token() != null) {
            // Recorded before this returns, so before the caller's interrupt: the work reads it then.
            lastWithdrawal = new Withdrawal(current.token(), cause);
        }
        return current.token();
    }

    /** @return the cause of the last withdrawal, empty if no grant was withdrawn yet */
    Optional<LossCause> lastCause() {
        return Optional.ofNullable(lastWithdrawal).map(Withdrawal::cause);
    }

    /** @return why the grant of {@code token} was withdrawn; empty if it was not, or a later one was withdrawn since */
    Optional<LossCause> causeOf(FencingToken token) {
        Withdrawal last = lastWithdrawal;
        return last != null && last.token().equals(token) ? Optional.of(last.cause()) : Optional.empty();
    }
}
